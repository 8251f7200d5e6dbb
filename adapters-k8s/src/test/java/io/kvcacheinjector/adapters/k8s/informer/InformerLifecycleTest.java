package io.kvcacheinjector.adapters.k8s.informer;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.kvcacheinjector.adapters.k8s.Await;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.SyncState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Sync, live reads, deletions, watch drops and the not-ready answer, each against a fresh mock API server. */
class InformerLifecycleTest {
    private MockCluster cluster;
    private InformerClusterDirectory view;

    @BeforeEach
    void startCluster() {
        cluster = new MockCluster();
    }

    @AfterEach
    void stop() {
        if (view != null) {
            view.close();
        }
        cluster.close();
    }

    @Test
    void isNotReadyAndAnswersFailedUntilEveryInformerHasSynced() {
        cluster.stop(); // the API server is unreachable while the view starts
        view = InformerClusterDirectory.start(cluster.client(), "gpustack-system", Duration.ofMillis(500));

        assertThat(view.syncState()).isInstanceOfSatisfying(SyncState.NotSynced.class,
                s -> assertThat(s.reason()).contains("informer").contains("has not finished its first list"));
        Lookup<KvCachePoolBinding> early = view.binding("team-a", "chat");
        assertThat(early).isInstanceOfSatisfying(Lookup.Failed.class, f -> assertThat(f.reason())
                .contains("cannot read KVCachePoolBinding team-a/chat: the cluster view is not ready"));
        assertThat(view.configMap("lmcache", "cb-connection")).isInstanceOf(Lookup.Failed.class);

        cluster.restart();
        cluster.create(binding("chat", "team-a"));
        assertThat(view.awaitSynced(Duration.ofSeconds(30))).as("synced after the API server came back").isTrue();
        Await.until("the Binding in the cache", () -> view.binding("team-a", "chat") instanceof Lookup.Found);
    }

    @Test
    void theInformersListInPagesSoThatALargeClusterIsNeverDecodedInOnePiece() {
        cluster.create(binding("chat", "team-a"));
        view = InformerClusterDirectory.start(cluster.client(), "gpustack-system", Duration.ofMillis(500));
        assertThat(view.awaitSynced(Duration.ofSeconds(30))).isTrue();

        // a list of 10 000 Bindings decoded at once grew the heap, and with it the resident set, by about 10 MiB
        // more than pages of 500 do (docs/explanation/performance-log.md, "Scale")
        assertThat(cluster.requestPaths()).filteredOn(p -> p.contains("/kvcachepoolbindings?")
                        && !p.contains("watch=true"))
                .isNotEmpty()
                .allSatisfy(p -> assertThat(p).contains("limit=" + InformerClusterDirectory.LIST_PAGE));
    }

    @Test
    void aMissingCrdKeepsTheViewNotReadyAndSaysWhichKind() {
        // an API server that serves none of the kinds (every request is 404), as when the CRDs are not installed
        var empty = new io.fabric8.kubernetes.client.server.mock.KubernetesMockServer(false);
        empty.init();
        try (var client = empty.createClient()) {
            view = InformerClusterDirectory.start(client, "gpustack-system");
            Await.until("the list failure to be reported", () -> view.syncState() instanceof SyncState.NotSynced n
                    && n.reason().contains("HTTP 404"));
            assertThat(((SyncState.NotSynced) view.syncState()).reason())
                    .containsPattern("the (KVCachePoolBinding|KVCachePool|KVCacheBackend|CacheBlendEngine|Secret) "
                            + "informer .* has not finished its first list");
            Await.until("the CRD hint", () -> view.syncState() instanceof SyncState.NotSynced n
                    && (n.reason().contains("is the CRD") || n.reason().contains("Secret")));
            assertThat(view.awaitSynced(Duration.ofMillis(300))).isFalse();
            view.close();
            view = null;
        } finally {
            empty.destroy();
        }
    }

    @Test
    void aBindingCreatedAMomentAgoIsFoundByOneLiveRead() {
        view = started();
        // served by the API server but not (yet) seen by the informer's watch
        cluster.server().expect().get()
                .withPath("/apis/worker.gpustack.ai/v1alpha1/namespaces/team-a/kvcachepoolbindings/fresh")
                .andReturn(200, cluster.client().getKubernetesSerialization().convertValue(binding("fresh", "team-a"),
                        GenericKubernetesResource.class))
                .always();
        int before = cluster.requestCount();
        assertThat(view.binding("team-a", "fresh")).isEqualTo(Lookup.found(new KvCachePoolBinding(
                "team-a", "fresh", java.util.Optional.of("shared"), "d", "bfloat16", false)));
        assertThat(cluster.requestCount() - before).isEqualTo(1);
    }

    @Test
    void aFailedLiveReadIsAFailedLookupWithTheServersReason() {
        view = started();
        cluster.server().expect().get()
                .withPath("/apis/worker.gpustack.ai/v1alpha1/namespaces/team-a/kvcachepoolbindings/secret-one")
                .andReturn(403, new StatusBuilder().withCode(403).withReason("Forbidden").withMessage(
                        "kvcachepoolbindings.worker.gpustack.ai \"secret-one\" is forbidden").build())
                .always();
        assertThat(view.binding("team-a", "secret-one")).isInstanceOfSatisfying(Lookup.Failed.class, f ->
                assertThat(f.reason()).contains("live read of KVCachePoolBinding team-a/secret-one")
                        .contains("HTTP 403").contains("is forbidden"));
    }

    @Test
    void aDeletionIsObservedFromTheCache() {
        view = started();
        Map<String, Object> object = binding("chat", "team-a");
        meta(object).put("finalizers", new ArrayList<>(List.of("worker.gpustack.ai/ledger")));
        cluster.create(object);
        awaitCached("the Binding", () -> view.binding("team-a", "chat"));

        var bindings = cluster.client().genericKubernetesResources(WatchedKind.context(ClusterKind.KV_CACHE_POOL_BINDING))
                .inNamespace("team-a");
        bindings.withName("chat").delete();
        Await.until("the deletion timestamp in the cache", () -> withoutApiCall(() -> view.binding("team-a", "chat"))
                instanceof Lookup.Found<KvCachePoolBinding> f && f.value().terminating());

        bindings.withName("chat").edit(b -> {
            b.getMetadata().setFinalizers(List.of());
            return b;
        });
        Await.until("the Binding gone", () -> view.binding("team-a", "chat") instanceof Lookup.NotFound);
    }

    @Test
    void aDroppedWatchMakesTheViewNotReadyUntilItResumes() {
        view = started();
        cluster.create(binding("before", "team-a"));
        awaitCached("the first Binding", () -> view.binding("team-a", "before"));

        cluster.stop();
        Await.until("the view to notice the dropped watch", () -> view.syncState() instanceof SyncState.NotSynced);
        assertThat(view.syncState()).isInstanceOfSatisfying(SyncState.NotSynced.class,
                s -> assertThat(s.reason()).contains("watch").contains("dropped and is resuming"));
        assertThat(view.binding("team-a", "before")).isInstanceOfSatisfying(Lookup.Failed.class,
                f -> assertThat(f.reason()).contains("the cluster view is not ready"));

        cluster.restart();
        assertThat(view.awaitSynced(Duration.ofSeconds(60))).as("watch resumed: %s", view.syncState()).isTrue();
        cluster.create(binding("after", "team-a"));
        awaitCached("a Binding created after the watch resumed", () -> view.binding("team-a", "after"));
        assertThat(withoutApiCall(() -> view.binding("team-a", "before"))).isInstanceOf(Lookup.Found.class);
    }

    @Test
    void theConnectionConfigMapOfEachKnownEngineIsWatchedByName() {
        view = started();
        cluster.create(engine("cb", "lmcache"));
        cluster.create(configMap("cb-connection", "lmcache"));
        cluster.create(configMap("unrelated", "lmcache"));
        awaitCached("the connection ConfigMap", () -> view.configMap("lmcache", "cb-connection"));

        // a ConfigMap that is no engine's connection is never cached: each lookup reads it live
        int before = cluster.requestCount();
        assertThat(view.configMap("lmcache", "unrelated")).isInstanceOf(Lookup.Found.class);
        assertThat(cluster.requestCount() - before).isEqualTo(1);

        cluster.client().genericKubernetesResources(WatchedKind.context(ClusterKind.CACHE_BLEND_ENGINE))
                .inNamespace("lmcache").withName("cb").delete();
        Await.until("the engine gone", () -> view.cacheBlendEngine("lmcache", "cb") instanceof Lookup.NotFound);
        // the engine's delete handler stops its ConfigMap's informer just after the engine left the store (fabric8
        // runs handlers after the store is updated), so the ConfigMap is read live from a moment later on
        Await.until("the connection ConfigMap no longer cached: read live", () -> {
            int afterDelete = cluster.requestCount();
            return view.configMap("lmcache", "cb-connection") instanceof Lookup.Found
                    && cluster.requestCount() - afterDelete == 1;
        });
    }

    @Test
    void aChangedSettingReachesTheView() {
        Map<String, Object> secret = new LinkedHashMap<>(Map.of("apiVersion", "v1", "kind", "Secret",
                "metadata", new LinkedHashMap<>(Map.of("name", "gpustack-settings", "namespace", "gpustack-system")),
                "data", Map.of("model-deployment-kv-cache-dtype-owned", "dHJ1ZQ==")));
        cluster.create(secret);
        view = started();
        assertThat(view.kvCacheDtypeOwned()).isTrue();

        cluster.client().secrets().inNamespace("gpustack-system").withName("gpustack-settings")
                .edit(s -> {
                    s.setData(Map.of("model-deployment-kv-cache-dtype-owned", "MA==")); // "0"
                    return s;
                });
        Await.until("the Setting turned off", () -> !view.kvCacheDtypeOwned());

        cluster.client().secrets().inNamespace("gpustack-system").withName("gpustack-settings").delete();
        Await.until("the default, on, without the Secret", view::kvCacheDtypeOwned);
    }

    @Test
    void aSecretWithTheSettingsNameInAnotherNamespaceIsNotRead() {
        cluster.create(new LinkedHashMap<>(Map.of("apiVersion", "v1", "kind", "Secret",
                "metadata", new LinkedHashMap<>(Map.of("name", "gpustack-settings", "namespace", "other")),
                "stringData", Map.of("model-deployment-kv-cache-dtype-owned", "false"),
                "data", Map.of("model-deployment-kv-cache-dtype-owned", "ZmFsc2U="))));
        view = started();
        assertThat(view.kvCacheDtypeOwned()).isTrue();
    }

    private InformerClusterDirectory started() {
        InformerClusterDirectory started = InformerClusterDirectory.start(cluster.client(), "gpustack-system");
        assertThat(started.awaitSynced(Duration.ofSeconds(30))).as("synced: %s", started.syncState()).isTrue();
        return started;
    }

    private <T> void awaitCached(String what, Supplier<Lookup<T>> lookup) {
        Await.until(what + " in the cache", () -> withoutApiCall(lookup) instanceof Lookup.Found);
    }

    /** The lookup's answer if it made no API call, otherwise a marker that is never Found. */
    private <T> Lookup<T> withoutApiCall(Supplier<Lookup<T>> lookup) {
        int before = cluster.requestCount();
        Lookup<T> answer = lookup.get();
        return cluster.requestCount() == before ? answer : Lookup.failed("made an API call");
    }

    static Map<String, Object> binding(String name, String namespace) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("poolRef", Map.of("name", "shared"));
        spec.put("domain", Map.of("name", "d", "dtype", "bfloat16"));
        return object("worker.gpustack.ai/v1alpha1", "KVCachePoolBinding", name, namespace, "spec", spec);
    }

    static Map<String, Object> engine(String name, String namespace) {
        return object("lmcache.lmcache.ai/v1alpha1", "CacheBlendEngine", name, namespace, "spec",
                Map.of("injection", Map.of("payloadImage", Map.of("repository", "tensormesh/cacheblend-plugin"))));
    }

    static Map<String, Object> configMap(String name, String namespace) {
        return object("v1", "ConfigMap", name, namespace, "data",
                Map.of("kv-transfer-config.json", "{\"kv_connector\":\"CBKVConnector\"}"));
    }

    private static Map<String, Object> object(String apiVersion, String kind, String name, String namespace,
            String field, Object value) {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put("apiVersion", apiVersion);
        object.put("kind", kind);
        object.put("metadata", new LinkedHashMap<>(Map.of("name", name, "namespace", namespace)));
        object.put(field, value);
        return object;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> meta(Map<String, Object> object) {
        return (Map<String, Object>) object.get("metadata");
    }
}
