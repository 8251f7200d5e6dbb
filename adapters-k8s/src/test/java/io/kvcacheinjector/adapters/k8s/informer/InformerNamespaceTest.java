package io.kvcacheinjector.adapters.k8s.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.k8s.Await;
import io.kvcacheinjector.adapters.k8s.CacheBlendContract;
import io.kvcacheinjector.adapters.k8s.ClusterDirectoryContract;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.NamespaceLabels;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Namespace informer behind {@code warn-namespace-not-privileged}: a namespace's Pod Security label is read from
 * the cache as it changes, an unknown namespace is not found, and without CacheBlend no Namespace is watched.
 */
class InformerNamespaceTest {
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

    private static Map<String, Object> namespace(String name, String enforce) {
        return Map.of("apiVersion", "v1", "kind", "Namespace", "metadata", new java.util.HashMap<>(Map.of("name", name,
                "labels", Map.of(NamespaceLabels.PSS_ENFORCE, enforce))));
    }

    @Test
    void theEnforceLabelOfANamespaceIsReadFromTheCacheAndFollowsChanges() {
        cluster = new MockCluster();
        cluster.load(ClusterDirectoryContract.fixtureCluster().resolve("kvcache"));
        cluster.load(ClusterDirectoryContract.fixtureCluster().resolve("settings"));
        cluster.create(namespace("team-b", "baseline"));

        view = InformerClusterDirectory.start(cluster.client(), "gpustack-system", CacheBlendContract.ENABLED);
        assertThat(view.awaitSynced(Duration.ofSeconds(30))).as("synced: %s", view.syncState()).isTrue();

        Await.until("Namespace team-b in the cache", () -> view.namespace("team-b") instanceof Lookup.Found);
        assertThat(view.namespace("team-b")).isInstanceOfSatisfying(Lookup.Found.class, f ->
                assertThat(((NamespaceLabels) f.value()).podSecurityEnforce()).contains("baseline"));
        assertThat(view.namespace("nowhere")).isInstanceOf(Lookup.NotFound.class);

        cluster.client().namespaces().withName("team-b").edit(n -> {
            n.getMetadata().getLabels().put(NamespaceLabels.PSS_ENFORCE, "privileged");
            return n;
        });
        Await.until("the relabelled Namespace in the cache", () -> view.namespace("team-b") instanceof Lookup.Found<?> f
                && ((NamespaceLabels) f.value()).podSecurityEnforce().orElse("").equals("privileged"));
    }

    @Test
    void withoutCacheBlendNoNamespaceIsWatchedAndNoneIsFound() {
        cluster = new MockCluster();
        cluster.load(ClusterDirectoryContract.fixtureCluster().resolve("kvcache"));
        cluster.load(ClusterDirectoryContract.fixtureCluster().resolve("settings"));
        cluster.create(namespace("team-b", "baseline"));

        view = InformerClusterDirectory.start(cluster.client(), "gpustack-system", CacheBlendContract.DISABLED);
        assertThat(view.awaitSynced(Duration.ofSeconds(30))).isTrue();
        assertThat(view.namespace("team-b")).isInstanceOf(Lookup.NotFound.class);
    }
}
