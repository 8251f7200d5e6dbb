package io.kvcacheinjector.app.check;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.cluster.ClusterObjects;
import io.kvcacheinjector.domain.cluster.ConfigMapData;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * The cluster view of {@code check}: each object read once from the live API with the user's credentials and kept
 * for the rest of the run, mapped to the domain exactly as the webhook's informers map it ({@link ClusterObjects}).
 * Always synced; a failed read is {@link Lookup.Failed} with the reason, as in the webhook. {@code inject} and
 * {@code review} without {@code --cluster} read the cluster through it too, read-only.
 */
public final class LiveClusterDirectory implements ClusterDirectoryPort, SettingsPort {
    private final KubernetesClient client;
    private final String settingsNamespace;
    private final Map<String, Lookup<?>> read = new HashMap<>();

    public LiveClusterDirectory(KubernetesClient client, String settingsNamespace) {
        this.client = client;
        this.settingsNamespace = settingsNamespace;
    }

    @Override
    public SyncState syncState() {
        return SyncState.synced();
    }

    @Override
    public Lookup<KvCachePoolBinding> binding(String namespace, String name) {
        return get(ClusterKind.KV_CACHE_POOL_BINDING, namespace, name, ClusterObjects::binding);
    }

    @Override
    public Lookup<KvCachePool> pool(String name) {
        return get(ClusterKind.KV_CACHE_POOL, "", name, (o, ns) -> ClusterObjects.pool(o));
    }

    @Override
    public Lookup<KvCacheBackend> backend(String name) {
        return get(ClusterKind.KV_CACHE_BACKEND, "", name, (o, ns) -> ClusterObjects.backend(o));
    }

    @Override
    public Lookup<CacheBlendEngine> cacheBlendEngine(String namespace, String name) {
        return get(ClusterKind.CACHE_BLEND_ENGINE, namespace, name, ClusterObjects::cacheBlendEngine);
    }

    @Override
    public Lookup<ConfigMapData> configMap(String namespace, String name) {
        return get(ClusterKind.CONFIG_MAP, namespace, name, ClusterObjects::configMap);
    }

    /** The dtype Setting; on (the webhook's default) when the Secret is absent or this user may not read it. */
    @Override
    public boolean kvCacheDtypeOwned() {
        Lookup<Boolean> owned = get(ClusterKind.SECRET, settingsNamespace, ClusterObjects.SETTINGS_SECRET,
                (o, ns) -> ClusterObjects.dtypeOwned(o));
        return owned instanceof Lookup.Found<Boolean> f ? f.value() : true;
    }

    /** The raw object, or empty when it does not exist. */
    Optional<GenericKubernetesResource> raw(ClusterKind kind, String namespace, String name) {
        var resources = client.genericKubernetesResources(context(kind));
        return Optional.ofNullable(kind.namespaced()
                ? resources.inNamespace(namespace).withName(name).get()
                : resources.withName(name).get());
    }

    static ResourceDefinitionContext context(ClusterKind kind) {
        return new ResourceDefinitionContext.Builder().withGroup(kind.group()).withVersion(kind.version())
                .withKind(kind.kind()).withPlural(kind.plural()).withNamespaced(kind.namespaced()).build();
    }

    @SuppressWarnings("unchecked")
    private <R> Lookup<R> get(ClusterKind kind, String namespace, String name,
                              BiFunction<Map<String, Object>, String, R> mapping) {
        String key = kind + "/" + namespace + "/" + name;
        return (Lookup<R>) read.computeIfAbsent(key, k -> {
            try {
                Optional<GenericKubernetesResource> object = raw(kind, namespace, name);
                if (object.isEmpty()) {
                    return Lookup.notFound();
                }
                Map<String, Object> tree = client.getKubernetesSerialization().convertValue(object.get(), Map.class);
                return Lookup.found(mapping.apply(tree, namespace));
            } catch (KubernetesClientException e) {
                return Lookup.failed("the read of " + kind.kind() + " "
                        + (kind.namespaced() ? namespace + "/" : "") + name + " failed: " + Reads.reason(e));
            }
        });
    }
}
