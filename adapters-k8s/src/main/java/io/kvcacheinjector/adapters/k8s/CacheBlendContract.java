package io.kvcacheinjector.adapters.k8s;

import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.cluster.ConfigMapData;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.NamespaceLabels;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import java.util.Objects;

/**
 * Whether a cluster view serves the LMCache CacheBlend contract ({@code CacheBlendEngine} objects and their
 * {@code <engine>-connection} ConfigMaps) beside the kvcache one.
 *
 * <p>{@link #DISABLED} is for clusters without the {@code cacheblendengines.lmcache.lmcache.ai} CRD (for example
 * where only the gpustack operator's {@code worker.gpustack.ai} CRDs are installed): the informer view then neither
 * watches CacheBlendEngines nor connection ConfigMaps, its readiness does not depend on them, and every CacheBlend
 * lookup answers {@link Lookup.Failed} with {@link #DISABLED_REASON}. Serve flag {@code --disable-cacheblend}, chart
 * value {@code cacheBlend.contract.enabled=false}.
 */
public enum CacheBlendContract {
    /** CacheBlendEngines and their connection ConfigMaps are watched; the view is ready only once they have listed. */
    ENABLED,
    /** Nothing of CacheBlend is read; CacheBlend lookups fail with {@link #DISABLED_REASON}. */
    DISABLED;

    /** The reason of every CacheBlend lookup while the contract is disabled. */
    public static final String DISABLED_REASON = "the CacheBlend contract is disabled on this webhook"
            + " (--disable-cacheblend); to serve CacheBlend Pods, install the CacheBlendEngine CRD and start the"
            + " webhook without that flag (chart value cacheBlend.contract.enabled=true)";

    /**
     * The hint added to the {@code /readyz} reason when the API server does not serve CacheBlendEngines (HTTP 404)
     * while the contract is enabled.
     */
    public static final String MISSING_CRD_HINT = "If this cluster does not use CacheBlend, start the webhook with"
            + " --disable-cacheblend (chart value cacheBlend.contract.enabled=false)";

    /** The contract as the serve flag states it. */
    public static CacheBlendContract disabledWhen(boolean disabled) {
        return disabled ? DISABLED : ENABLED;
    }

    public boolean enabled() {
        return this == ENABLED;
    }

    /**
     * {@code view} under this contract: itself when enabled; when disabled, a view that answers every CacheBlend
     * lookup {@link Lookup.Failed} with {@link #DISABLED_REASON} and passes the kvcache lookups through. For views
     * that cannot stop reading CacheBlend objects themselves (the file-backed directory, which reads whatever files
     * it is given); the informer view takes the contract at start.
     */
    public ClusterDirectoryPort applyTo(ClusterDirectoryPort view) {
        Objects.requireNonNull(view, "view");
        return enabled() ? view : new WithoutCacheBlend(view);
    }

    private record WithoutCacheBlend(ClusterDirectoryPort view) implements ClusterDirectoryPort {
        @Override
        public SyncState syncState() {
            return view.syncState();
        }

        @Override
        public Lookup<KvCachePoolBinding> binding(String namespace, String name) {
            return view.binding(namespace, name);
        }

        @Override
        public Lookup<KvCachePool> pool(String name) {
            return view.pool(name);
        }

        @Override
        public Lookup<KvCacheBackend> backend(String name) {
            return view.backend(name);
        }

        @Override
        public Lookup<NamespaceLabels> namespace(String name) {
            return view.namespace(name);
        }

        @Override
        public Lookup<CacheBlendEngine> cacheBlendEngine(String namespace, String name) {
            return Lookup.failed(DISABLED_REASON);
        }

        @Override
        public Lookup<ConfigMapData> configMap(String namespace, String name) {
            return Lookup.failed(DISABLED_REASON);
        }
    }
}
