package io.kvcacheinjector.adapters.k8s.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.k8s.Await;
import io.kvcacheinjector.adapters.k8s.CacheBlendContract;
import io.kvcacheinjector.adapters.k8s.ClusterDirectoryContract;
import io.kvcacheinjector.domain.cluster.Condition;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.SyncState;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A cluster that has only the gpustack operator's {@code worker.gpustack.ai} CRDs (the API server answers 404 for
 * {@code lmcache.lmcache.ai}): with the CacheBlend contract disabled the view syncs and serves the kvcache contract;
 * with it enabled, the view stays not ready and says which CRD is missing and how to do without it.
 */
class InformerCacheBlendContractTest {
    private MockCluster cluster;
    private InformerClusterDirectory view;

    @AfterEach
    void stop() {
        if (view != null) {
            view.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void withCacheBlendDisabledAClusterWithoutItsCrdSyncsAndServesKvCacheLookups() {
        cluster = MockCluster.withoutGroup("lmcache.lmcache.ai");
        // the fixture cluster's kvcache objects and settings Secret; its CacheBlendEngines have no CRD here
        cluster.load(ClusterDirectoryContract.fixtureCluster().resolve("kvcache"));
        cluster.load(ClusterDirectoryContract.fixtureCluster().resolve("settings"));

        view = InformerClusterDirectory.start(cluster.client(), "gpustack-system", CacheBlendContract.DISABLED);

        assertThat(view.awaitSynced(Duration.ofSeconds(30))).as("synced: %s", view.syncState()).isTrue();
        assertThat(view.cacheBlendContract()).isEqualTo(CacheBlendContract.DISABLED);
        Await.until("the Binding in the cache", () -> view.binding("team-a", "chat") instanceof Lookup.Found);
        assertThat(view.binding("team-a", "chat")).isEqualTo(Lookup.found(new KvCachePoolBinding(
                "team-a", "chat", Optional.of("shared"), "team-a-chat", "bfloat16", false)));
        assertThat(view.pool("shared")).isEqualTo(Lookup.found(new KvCachePool("shared", List.of("mc"),
                "mc-leader.kv.svc:50051",
                Optional.of(new Condition("QuotaLedgerAvailable", "True", "Available", "ledger reachable")))));
        assertThat(view.backend("mc")).isEqualTo(Lookup.found(
                new KvCacheBackend("mc", Optional.of("RDMA"), List.of(Optional.empty(), Optional.empty()))));
        assertThat(view.binding("team-a", "missing")).isEqualTo(Lookup.notFound());
        assertThat(view.kvCacheDtypeOwned()).as("the settings Secret is read").isFalse();
    }

    @Test
    void withCacheBlendDisabledACacheBlendLookupFailsSayingSoAndReadsNothing() {
        cluster = MockCluster.withoutGroup("lmcache.lmcache.ai");
        view = InformerClusterDirectory.start(cluster.client(), "gpustack-system", Duration.ofSeconds(1),
                CacheBlendContract.DISABLED);
        assertThat(view.awaitSynced(Duration.ofSeconds(30))).as("synced: %s", view.syncState()).isTrue();

        int before = cluster.requestCount();
        assertThat(view.cacheBlendEngine("lmcache", "cb")).isInstanceOfSatisfying(Lookup.Failed.class, f ->
                assertThat(f.reason()).contains("the CacheBlend contract is disabled on this webhook"
                        + " (--disable-cacheblend)").contains("cacheBlend.contract.enabled=true"));
        assertThat(view.configMap("lmcache", "cb-connection")).isInstanceOfSatisfying(Lookup.Failed.class, f ->
                assertThat(f.reason()).contains("(--disable-cacheblend)"));
        assertThat(cluster.requestCount() - before).as("API requests for CacheBlend lookups").isZero();
        assertThat(cluster.requestPaths()).as("nothing of CacheBlend is listed or watched")
                .noneMatch(p -> p.contains("cacheblendengines") || p.contains("lmcache.lmcache.ai"))
                .noneMatch(p -> p.contains("/configmaps"))
                .noneMatch(p -> p.startsWith("/api/v1/namespaces?"));
    }

    @Test
    void withCacheBlendEnabledAMissingCrdKeepsTheViewNotReadyNamingTheCrdAndTheFlag() {
        cluster = MockCluster.withoutGroup("lmcache.lmcache.ai");
        cluster.create(InformerLifecycleTest.binding("chat", "team-a"));

        view = InformerClusterDirectory.start(cluster.client(), "gpustack-system");

        Await.until("the missing CRD to be named", () -> view.syncState() instanceof SyncState.NotSynced n
                && n.reason().contains("HTTP 404"));
        assertThat(view.cacheBlendContract()).isEqualTo(CacheBlendContract.ENABLED);
        assertThat(((SyncState.NotSynced) view.syncState()).reason())
                .contains("the CacheBlendEngine informer (all namespaces) has not finished its first list")
                .contains("is the CRD cacheblendengines.lmcache.lmcache.ai installed?")
                .contains("--disable-cacheblend").contains("cacheBlend.contract.enabled=false");
        assertThat(view.awaitSynced(Duration.ofMillis(500))).isFalse();
        // every kvcache lookup is refused until then (the use case answers cluster-not-ready), and says why
        assertThat(view.binding("team-a", "chat")).isInstanceOfSatisfying(Lookup.Failed.class, f -> assertThat(
                f.reason()).contains("the cluster view is not ready")
                .contains("cacheblendengines.lmcache.lmcache.ai"));
    }
}
