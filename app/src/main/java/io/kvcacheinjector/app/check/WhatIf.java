package io.kvcacheinjector.app.check;

import io.kvcacheinjector.app.wiring.AdmissionWiring;
import io.kvcacheinjector.domain.cacheblend.CacheBlendKeys;
import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.cluster.Condition;
import io.kvcacheinjector.domain.cluster.ConfigMapData;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.kvcacheinjector.ports.in.CacheBlendMutateUseCase;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.in.KvCacheMutateUseCase;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import io.kvcacheinjector.ports.spi.Engines;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The webhook's own use cases over the cluster as it will be once the cluster objects a finding names are right, so
 * that {@code check} can say what the webhook would answer next instead of leaving it to the next run: the
 * KVCachePoolBinding chain (Binding, pool, quota ledger, backend, endpoint, transport) answered by stand-ins, the
 * CacheBlendEngine's connection ConfigMap answered by a valid stand-in, and an engine in another namespace allowed.
 * The stand-ins only ever let a decision go past a check about a cluster object; what the Pod template itself gets
 * wrong is still the use case's own answer. Read-only, like the rest of {@code check}.
 */
final class WhatIf {
    /** The name of a stand-in object; it never appears in a finding, which reports refusals of the template only. */
    static final String STAND_IN = "check-stand-in";
    /**
     * The transports a stand-in backend offers, one per try, in API spelling: an engine that requires none takes the
     * first, an engine that requires one takes the try that offers it.
     */
    static final List<String> PROTOCOLS = List.of("Auto", "CANN", "RDMA", "EFA", "ROCM", "MUSA", "MACA");
    private static final String CONNECTION = "{\"kv_connector\":\"" + STAND_IN + "\",\"kv_role\":\"kv_both\"}";

    private final LiveClusterDirectory live;
    private final Engines engines;
    private final CacheBlendSettings cacheBlend;

    WhatIf(LiveClusterDirectory live, Engines engines, CacheBlendSettings cacheBlend) {
        this.live = live;
        this.engines = engines;
        this.cacheBlend = cacheBlend;
    }

    /** The kvcache use case over stand-ins for the Binding chain, the backend offering {@code protocol}. */
    KvCacheMutateUseCase kvcache(String protocol) {
        Repaired repaired = new Repaired(live, protocol);
        return AdmissionWiring.of(repaired, repaired, engines, cacheBlend).useCases().kvCacheMutate();
    }

    /**
     * The CacheBlend use case over a valid stand-in connection ConfigMap for every engine, with engines of
     * {@code allowNamespace} allowed besides the install's allow-list.
     */
    CacheBlendMutateUseCase cacheBlend(String allowNamespace) {
        Repaired repaired = new Repaired(live, PROTOCOLS.get(0));
        Set<String> allowed = new LinkedHashSet<>(cacheBlend.allowedNamespaces());
        allowed.add(allowNamespace);
        return AdmissionWiring.of(repaired, repaired, engines, new CacheBlendSettings(allowed,
                cacheBlend.failClosed(), cacheBlend.excludedNamespaces())).useCases().cacheBlendMutate();
    }

    /** The live view, with the cluster objects a finding names answered by stand-ins that pass every check. */
    private record Repaired(LiveClusterDirectory live, String protocol) implements ClusterDirectoryPort, SettingsPort {
        @Override
        public SyncState syncState() {
            return SyncState.synced();
        }

        /** The Binding as read (so its dtype still counts), never terminating, naming a pool; a stand-in if absent. */
        @Override
        public Lookup<KvCachePoolBinding> binding(String namespace, String name) {
            if (live.binding(namespace, name) instanceof Lookup.Found<KvCachePoolBinding> f) {
                KvCachePoolBinding b = f.value();
                return Lookup.found(new KvCachePoolBinding(namespace, name, b.poolName().or(() -> Optional.of(STAND_IN)),
                        b.domainName(), b.dtype(), false));
            }
            return Lookup.found(new KvCachePoolBinding(namespace, name, Optional.of(STAND_IN), "", "", false));
        }

        @Override
        public Lookup<KvCachePool> pool(String name) {
            return Lookup.found(new KvCachePool(name, List.of(STAND_IN), STAND_IN + ":50051",
                    Optional.of(new Condition("QuotaLedgerAvailable", "True", "Ready", ""))));
        }

        @Override
        public Lookup<KvCacheBackend> backend(String name) {
            return Lookup.found(new KvCacheBackend(name, Optional.of(protocol), List.of()));
        }

        @Override
        public Lookup<CacheBlendEngine> cacheBlendEngine(String namespace, String name) {
            return live.cacheBlendEngine(namespace, name);
        }

        /** An engine's connection ConfigMap is a valid one with every key; any other ConfigMap is read. */
        @Override
        public Lookup<ConfigMapData> configMap(String namespace, String name) {
            if (name.endsWith(CacheBlendKeys.CONNECTION_SUFFIX)) {
                return Lookup.found(new ConfigMapData(namespace, name, Map.of(
                        CacheBlendKeys.CONNECTION_KEY, CONNECTION,
                        CacheBlendKeys.CONNECTION_KEY_PREFILLER, CONNECTION,
                        CacheBlendKeys.CONNECTION_KEY_DECODER, CONNECTION)));
            }
            return live.configMap(namespace, name);
        }

        @Override
        public boolean kvCacheDtypeOwned() {
            return live.kvCacheDtypeOwned();
        }
    }
}
