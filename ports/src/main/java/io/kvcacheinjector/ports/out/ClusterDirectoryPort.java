package io.kvcacheinjector.ports.out;

import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.cluster.ConfigMapData;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.NamespaceLabels;
import io.kvcacheinjector.domain.cluster.SyncState;

/**
 * The cluster view the webhooks read (driven port). Implementations: informer caches with a live read on a
 * miss (adapters-k8s), and the file-backed directory of {@code --cluster DIR}. A lookup never throws: a read
 * failure is {@link Lookup.Failed}.
 */
public interface ClusterDirectoryPort {
    /** Whether the view has synced and still holds its watches. */
    SyncState syncState();

    Lookup<KvCachePoolBinding> binding(String namespace, String name);

    Lookup<KvCachePool> pool(String name);

    Lookup<KvCacheBackend> backend(String name);

    Lookup<CacheBlendEngine> cacheBlendEngine(String namespace, String name);

    Lookup<ConfigMapData> configMap(String namespace, String name);

    /**
     * A Namespace's labels, read only for an advisory warning (the Pod Security level of a CacheBlend Pod's
     * namespace), never for a decision. A view that does not watch Namespaces answers not-found, and no warning is
     * given.
     */
    default Lookup<NamespaceLabels> namespace(String name) {
        return Lookup.notFound();
    }
}
