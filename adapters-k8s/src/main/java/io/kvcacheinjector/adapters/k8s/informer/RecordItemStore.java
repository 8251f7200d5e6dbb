package io.kvcacheinjector.adapters.k8s.informer;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/**
 * An informer's store that keeps of each object only its domain record and its {@code resourceVersion}: the object is
 * mapped once, when the informer puts it, and nothing else of it is kept.
 *
 * <p>Before, the store kept a trimmed copy of each object (a {@link GenericKubernetesResource}: maps of maps for
 * {@code spec} and {@code status}, an {@link ObjectMeta} with its empty lists) and the view kept the mapped record
 * besides it: 1.6–1.9 KiB of heap per cached object, 32–36 MiB with 10 000 Bindings, each with its pool; this store
 * holds about 0.3 KiB per object (docs/explanation/performance-log.md, "Scale: how the cost grows with the cluster" and
 * lever 11).
 *
 * <p>What fabric8's informer (7.5) asks of its store, and what this one answers:
 * <ul>
 *   <li>{@code put} of each listed or watched object: the previous object, whose {@code resourceVersion} decides
 *       whether an update is reported, and which is the {@code oldObj} of the update;</li>
 *   <li>{@code remove} on a deletion, and on a relist for each key the list no longer has: the removed object, which
 *       a relist hands to {@code onDelete};</li>
 *   <li>{@code values} on every list (the keys of its objects decide what a relist removed), and {@code get} for the
 *       adds it defers until the first list is complete, which it then hands to {@code onAdd}.</li>
 * </ul>
 * Each of these gets a small object made on the spot from the key and the entry: {@code apiVersion}, {@code kind},
 * name, namespace and {@code resourceVersion}. That is all fabric8 reads of them, and all the view's own handlers read
 * (the namespace and name of a CacheBlendEngine, to follow its connection ConfigMap). Watch events still hand the
 * handlers the object as read.
 *
 * <p>The record is mapped from the fields the contracts read (the tree {@code ClusterObjects} reads:
 * {@code apiVersion}, {@code kind}, name, namespace, {@code resourceVersion}, {@code deletionTimestamp}, the labels
 * named in {@code keptLabels}, and {@code spec}, {@code status}, {@code data}, {@code stringData}), built from its own
 * maps with no serialisation round trip, so that mapping each object of a first list costs about what trimming it did
 * (measured in the same place in docs/explanation/performance.md). An object put again with the
 * {@code resourceVersion} it has (a relist) keeps its record and is not mapped again. A mapping that throws is kept
 * as its exception and thrown by {@link #record} — at the lookup, as before this store — so that an object the
 * mapping cannot read never stops the informer.
 *
 * @param <R> the domain record the objects map to
 */
final class RecordItemStore<R> implements ItemStore<GenericKubernetesResource> {
    /** The top-level fields the mapping sees besides apiVersion, kind and metadata. */
    static final Set<String> KEPT = Set.of("spec", "status", "data", "stringData");

    private final ConcurrentHashMap<String, Entry> items = new ConcurrentHashMap<>();
    private final String apiVersion;
    private final String kind;
    private final Set<String> keptLabels;
    private final BiFunction<Map<String, Object>, String, R> mapping;

    /**
     * @param apiVersion the {@code apiVersion} of the objects handed back to the informer
     * @param kind       their {@code kind}
     * @param keptLabels the labels the mapping sees (a Namespace's {@code pod-security.kubernetes.io/enforce}, which
     *                   the CacheBlend warning reads); every other label is dropped before the mapping
     * @param mapping    JSON tree and the object's namespace ({@code ""} for a cluster-scoped one) to the record
     */
    RecordItemStore(String apiVersion, String kind, Set<String> keptLabels,
            BiFunction<Map<String, Object>, String, R> mapping) {
        this.apiVersion = apiVersion;
        this.kind = kind;
        this.keptLabels = Set.copyOf(keptLabels);
        this.mapping = mapping;
    }

    @Override
    public String getKey(GenericKubernetesResource object) {
        return Cache.metaNamespaceKeyFunc(object);
    }

    @Override
    public GenericKubernetesResource put(String key, GenericKubernetesResource object) {
        ObjectMeta metadata = object.getMetadata();
        String version = metadata == null ? null : metadata.getResourceVersion();
        Entry known = items.get(key);
        Entry entry = known != null && version != null && known.hasVersion(version) ? known : Entry.of(version,
                map(object));
        return object(key, items.put(key, entry));
    }

    @Override
    public GenericKubernetesResource remove(String key) {
        return object(key, items.remove(key));
    }

    @Override
    public Stream<String> keySet() {
        return items.keySet().stream();
    }

    @Override
    public Stream<GenericKubernetesResource> values() {
        return items.entrySet().stream().map(e -> object(e.getKey(), e.getValue()));
    }

    @Override
    public int size() {
        return items.size();
    }

    @Override
    public GenericKubernetesResource get(String key) {
        return object(key, items.get(key));
    }

    /**
     * The record of the object stored under {@code key} ({@code namespace/name}, or the name of a cluster-scoped
     * object), or null when there is none; throws what the mapping threw for it.
     */
    R record(String key) {
        Entry entry = items.get(key);
        if (entry == null) {
            return null;
        }
        if (entry.value instanceof MappingFailed failed) {
            throw failed.exception();
        }
        @SuppressWarnings("unchecked")
        R record = (R) entry.value;
        return record;
    }

    /** The record, or the mapping's exception. */
    private Object map(GenericKubernetesResource object) {
        ObjectMeta source = object.getMetadata();
        String namespace = source == null || source.getNamespace() == null ? "" : source.getNamespace();
        try {
            return mapping.apply(tree(object, keptLabels), namespace);
        } catch (RuntimeException e) {
            return new MappingFailed(e);
        }
    }

    /**
     * The object as the JSON tree the mapping reads, holding only the fields named in the class comment: the same
     * tree as the object serialised and read back as a map, without the serialisation ({@code spec} and the others are
     * already plain maps, lists and scalars in a {@link GenericKubernetesResource}).
     */
    static Map<String, Object> tree(GenericKubernetesResource object, Set<String> keptLabels) {
        Map<String, Object> tree = new LinkedHashMap<>();
        putIfPresent(tree, "apiVersion", object.getApiVersion());
        putIfPresent(tree, "kind", object.getKind());
        ObjectMeta source = object.getMetadata();
        if (source != null) {
            Map<String, Object> metadata = new LinkedHashMap<>();
            putIfPresent(metadata, "name", source.getName());
            putIfPresent(metadata, "namespace", source.getNamespace());
            putIfPresent(metadata, "resourceVersion", source.getResourceVersion());
            putIfPresent(metadata, "deletionTimestamp", source.getDeletionTimestamp());
            if (!keptLabels.isEmpty() && source.getLabels() != null) {
                Map<String, String> labels = new LinkedHashMap<>();
                source.getLabels().forEach((k, v) -> {
                    if (keptLabels.contains(k)) {
                        labels.put(k, v);
                    }
                });
                if (!labels.isEmpty()) {
                    metadata.put("labels", labels);
                }
            }
            tree.put("metadata", metadata);
        }
        for (Map.Entry<String, Object> field : object.getAdditionalProperties().entrySet()) {
            if (KEPT.contains(field.getKey())) {
                tree.put(field.getKey(), field.getValue());
            }
        }
        return tree;
    }

    private static void putIfPresent(Map<String, Object> map, String key, Object value) {
        if (value != null) {
            map.put(key, value);
        }
    }

    /** The object fabric8 gets for a stored entry: its kind, name, namespace and resourceVersion; null for none. */
    private GenericKubernetesResource object(String key, Entry entry) {
        if (entry == null) {
            return null;
        }
        ObjectMeta metadata = new ObjectMeta();
        int slash = key.indexOf('/'); // a name has no slash: namespace/name, or the name of a cluster-scoped object
        if (slash < 0) {
            metadata.setName(key);
        } else {
            metadata.setNamespace(key.substring(0, slash));
            metadata.setName(key.substring(slash + 1));
        }
        metadata.setResourceVersion(entry.version());
        GenericKubernetesResource object = new GenericKubernetesResource();
        object.setApiVersion(apiVersion);
        object.setKind(kind);
        object.setMetadata(metadata);
        return object;
    }

    /** What a failed mapping threw; {@link #record} throws it again. */
    private record MappingFailed(RuntimeException exception) {
    }

    /**
     * One stored object: its record and its {@code resourceVersion}, held as a number when it is one (the API server's
     * versions are etcd's revisions; 32 bytes an entry rather than 72 with the text), as text otherwise.
     *
     * @param number the version as a number, or -1
     * @param text   the version when it is not a plain decimal number (or absent: null, with {@code number} -1)
     * @param value  the record, or a {@link MappingFailed}
     */
    private record Entry(long number, String text, Object value) {
        static Entry of(String version, Object value) {
            long number = plainNumber(version);
            return new Entry(number, number < 0 ? version : null, value);
        }

        String version() {
            return number < 0 ? text : Long.toString(number);
        }

        boolean hasVersion(String version) {
            return number < 0 ? version.equals(text) : plainNumber(version) == number;
        }

        /** The version as a number when it is one without leading zeros (so it reads back the same), else -1. */
        private static long plainNumber(String version) {
            if (version == null || version.isEmpty() || version.length() > 18
                    || (version.length() > 1 && version.charAt(0) == '0')) {
                return -1;
            }
            long n = 0;
            for (int i = 0; i < version.length(); i++) {
                char c = version.charAt(i);
                if (c < '0' || c > '9') {
                    return -1;
                }
                n = n * 10 + (c - '0');
            }
            return n;
        }
    }
}
