package io.kvcacheinjector.adapters.k8s.file;

import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.cluster.ConfigMapData;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import java.util.Map;

/** One consistent load of a cluster directory, already mapped to the domain records. Immutable. */
record ClusterSnapshot(
        Map<ObjectKey, KvCachePoolBinding> bindings,
        Map<String, KvCachePool> pools,
        Map<String, KvCacheBackend> backends,
        Map<ObjectKey, CacheBlendEngine> cacheBlendEngines,
        Map<ObjectKey, ConfigMapData> configMaps,
        boolean dtypeOwned,
        int fileCount) {
    ClusterSnapshot {
        bindings = Map.copyOf(bindings);
        pools = Map.copyOf(pools);
        backends = Map.copyOf(backends);
        cacheBlendEngines = Map.copyOf(cacheBlendEngines);
        configMaps = Map.copyOf(configMaps);
    }

    int objectCount() {
        return bindings.size() + pools.size() + backends.size() + cacheBlendEngines.size() + configMaps.size();
    }
}
