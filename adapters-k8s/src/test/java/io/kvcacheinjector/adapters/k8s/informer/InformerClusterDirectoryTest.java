package io.kvcacheinjector.adapters.k8s.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.k8s.ClusterDirectoryContract;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The fixture cluster served by a mock API server and read through informers: the same answers as the files. */
class InformerClusterDirectoryTest extends ClusterDirectoryContract {
    private static MockCluster cluster;
    private static InformerClusterDirectory view;

    @BeforeAll
    static void startView() {
        cluster = new MockCluster();
        cluster.load(fixtureCluster());
        view = InformerClusterDirectory.start(cluster.client(), "gpustack-system");
        assertThat(view.awaitSynced(Duration.ofSeconds(30))).as("view synced: %s", view.syncState()).isTrue();
    }

    @AfterAll
    static void stopView() {
        view.close();
        cluster.close();
    }

    @Override
    protected ClusterDirectoryPort directory() {
        return view;
    }

    @Override
    protected SettingsPort settings() {
        return view;
    }

    @Test
    void aCacheHitMakesNoApiCall() {
        // the connection ConfigMap's informer starts once the engine is seen; wait until it serves from cache
        io.kvcacheinjector.adapters.k8s.Await.until("the connection ConfigMap in the cache",
                () -> callsFor(() -> view.configMap("lmcache", "cb-connection")) == 0);
        int before = cluster.requestCount();
        for (int i = 0; i < 100; i++) {
            assertThat(view.binding("team-a", "chat")).isInstanceOf(Lookup.Found.class);
            assertThat(view.binding("team-a", "leaving")).isInstanceOf(Lookup.Found.class);
            assertThat(view.pool("shared")).isInstanceOf(Lookup.Found.class);
            assertThat(view.backend("mc")).isInstanceOf(Lookup.Found.class);
            assertThat(view.cacheBlendEngine("lmcache", "cb")).isInstanceOf(Lookup.Found.class);
            assertThat(view.configMap("lmcache", "cb-connection")).isInstanceOf(Lookup.Found.class);
            assertThat(view.kvCacheDtypeOwned()).isFalse();
        }
        assertThat(cluster.requestCount() - before).as("API requests for 700 cached lookups").isZero();
    }

    @Test
    void aCacheMissMakesExactlyOneLiveRead() {
        int before = cluster.requestCount();
        assertThat(view.binding("team-a", "never-created")).isEqualTo(Lookup.notFound());
        assertThat(cluster.requestCount() - before).isEqualTo(1);
    }

    private static int callsFor(Runnable lookup) {
        int before = cluster.requestCount();
        lookup.run();
        return cluster.requestCount() - before;
    }
}
