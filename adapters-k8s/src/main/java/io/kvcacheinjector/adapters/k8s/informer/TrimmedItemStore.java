package io.kvcacheinjector.adapters.k8s.informer;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * An informer's store that keeps of each object only what the contracts read ({@code ClusterObjects}: the fields
 * docs/reference/crds.md and docs/reference/cacheblend-injection.md name) and what the informer itself needs: {@code apiVersion}, {@code kind}, the name, namespace,
 * {@code resourceVersion} and {@code deletionTimestamp} of {@code metadata}, and the top-level {@code spec},
 * {@code status}, {@code data} and {@code stringData}. Everything else — {@code managedFields} above all, which the
 * API server adds to every object and which is often larger than the object, labels, annotations such as
 * {@code kubectl.kubernetes.io/last-applied-configuration}, owner references — is dropped on the way in, so that the
 * cache of a cluster with 10 000 Bindings holds what the webhook reads and little else
 * (docs/explanation/performance.md, "Informer caches").
 *
 * <p>Event handlers still see the objects as read (fabric8 hands them the object before it is stored); a lookup and
 * the {@code oldObj} of an update see the trimmed copy.
 */
final class TrimmedItemStore implements ItemStore<GenericKubernetesResource> {
    /** The top-level fields kept besides apiVersion, kind and metadata. */
    static final Set<String> KEPT = Set.of("spec", "status", "data", "stringData");

    private final Map<String, GenericKubernetesResource> items = new ConcurrentHashMap<>();
    private final Set<String> keptLabels;

    /** A store that keeps no label. */
    TrimmedItemStore() {
        this(Set.of());
    }

    /**
     * A store that also keeps the labels named in {@code keptLabels} (a Namespace's
     * {@code pod-security.kubernetes.io/enforce}, which the CacheBlend warning reads); every other label is dropped.
     */
    TrimmedItemStore(Set<String> keptLabels) {
        this.keptLabels = Set.copyOf(keptLabels);
    }

    @Override
    public String getKey(GenericKubernetesResource object) {
        return Cache.metaNamespaceKeyFunc(object);
    }

    @Override
    public GenericKubernetesResource put(String key, GenericKubernetesResource object) {
        return items.put(key, trim(object, keptLabels));
    }

    @Override
    public GenericKubernetesResource remove(String key) {
        return items.remove(key);
    }

    @Override
    public Stream<String> keySet() {
        return items.keySet().stream();
    }

    @Override
    public Stream<GenericKubernetesResource> values() {
        return items.values().stream();
    }

    @Override
    public int size() {
        return items.size();
    }

    @Override
    public GenericKubernetesResource get(String key) {
        return items.get(key);
    }

    /** A copy holding only the fields named in the class comment; {@code object} itself is not changed. */
    static GenericKubernetesResource trim(GenericKubernetesResource object) {
        return trim(object, Set.of());
    }

    /** As {@link #trim(GenericKubernetesResource)}, keeping the labels named in {@code keptLabels}. */
    static GenericKubernetesResource trim(GenericKubernetesResource object, Set<String> keptLabels) {
        GenericKubernetesResource trimmed = new GenericKubernetesResource();
        trimmed.setApiVersion(object.getApiVersion());
        trimmed.setKind(object.getKind());
        ObjectMeta source = object.getMetadata();
        if (source != null) {
            ObjectMeta metadata = new ObjectMeta();
            metadata.setName(source.getName());
            metadata.setNamespace(source.getNamespace());
            metadata.setResourceVersion(source.getResourceVersion());
            metadata.setDeletionTimestamp(source.getDeletionTimestamp());
            if (!keptLabels.isEmpty() && source.getLabels() != null) {
                Map<String, String> labels = new LinkedHashMap<>();
                source.getLabels().forEach((k, v) -> {
                    if (keptLabels.contains(k)) {
                        labels.put(k, v);
                    }
                });
                metadata.setLabels(labels);
            }
            trimmed.setMetadata(metadata);
        }
        Map<String, Object> kept = new LinkedHashMap<>();
        for (Map.Entry<String, Object> field : object.getAdditionalProperties().entrySet()) {
            if (KEPT.contains(field.getKey())) {
                kept.put(field.getKey(), field.getValue());
            }
        }
        trimmed.setAdditionalProperties(kept);
        return trimmed;
    }
}
