package io.kvcacheinjector.adapters.k8s.informer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.impl.cache.CacheImpl;
import io.fabric8.kubernetes.client.informers.impl.cache.ProcessorStore;
import io.fabric8.kubernetes.client.informers.impl.cache.SharedProcessor;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import io.kvcacheinjector.domain.cluster.ClusterObjects;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.NamespaceLabels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The informer's store keeps each object's record only: every record equals the one mapped from the object as the API
 * server sent it, and fabric8's informer, driven through its own {@link ProcessorStore} and {@link CacheImpl} as its
 * reflector drives them, reports the same adds, updates and deletions to the handlers as with a store of whole objects.
 */
class RecordItemStoreTest {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private static final String BINDING = """
            apiVersion: worker.gpustack.ai/v1alpha1
            kind: KVCachePoolBinding
            metadata:
              name: %s
              namespace: team-a
              uid: 3b1f0c1e-0000-4000-8000-000000000001
              resourceVersion: "%s"
              generation: 3
              creationTimestamp: "2026-01-01T00:00:00Z"
              %s
              finalizers: [worker.gpustack.ai/ledger]
              labels: {team: a}
              annotations:
                kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"worker.gpustack.ai/v1alpha1"}'
              managedFields:
                - manager: kubectl
                  operation: Apply
                  apiVersion: worker.gpustack.ai/v1alpha1
                  fieldsType: FieldsV1
                  fieldsV1: {"f:spec": {"f:poolRef": {"f:name": {}}, "f:domain": {"f:name": {}, "f:dtype": {}}}}
            spec:
              poolRef: {name: shared}
              domain: {name: team-a-chat, dtype: %s}
            """;

    private static final String POOL = """
            apiVersion: worker.gpustack.ai/v1alpha1
            kind: KVCachePool
            metadata:
              name: shared
              resourceVersion: "12"
              managedFields: [{manager: operator, operation: Update, fieldsType: FieldsV1, fieldsV1: {"f:status": {}}}]
            spec:
              backends: [mc, 7, {name: odd}]
            status:
              clientEndpoint: mc-leader.kv.svc:50051
              conditions:
                - {type: QuotaLedgerAvailable, status: "False", reason: Draining, message: ledger draining}
            """;

    private static final String SECRET = """
            apiVersion: v1
            kind: Secret
            metadata:
              name: gpustack-settings
              namespace: gpustack-system
              resourceVersion: "99"
              annotations: {note: kept out}
            type: Opaque
            data:
              model-deployment-kv-cache-dtype-owned: ZmFsc2U=
            """;

    @Test
    void eachKindsRecordEqualsTheOneMappedFromTheObjectAsTheApiServerSentIt() {
        GenericKubernetesResource binding = binding("chat", "4711", "bfloat16", true);
        RecordItemStore<KvCachePoolBinding> bindings =
                store(ClusterKind.KV_CACHE_POOL_BINDING, ClusterObjects::binding);
        bindings.put(bindings.getKey(binding), binding);
        assertThat(bindings.record("team-a/chat")).isEqualTo(ClusterObjects.binding(tree(binding), "team-a"));
        assertThat(bindings.record("team-a/chat").terminating()).isTrue();
        assertThat(bindings.record("team-a/chat").poolName()).contains("shared");

        GenericKubernetesResource pool = resource(POOL);
        RecordItemStore<KvCachePool> pools = store(ClusterKind.KV_CACHE_POOL, (o, ns) -> ClusterObjects.pool(o));
        pools.put(pools.getKey(pool), pool);
        assertThat(pools.record("shared")).isEqualTo(ClusterObjects.pool(tree(pool)));
        assertThat(pools.record("shared").toString()).contains("Draining", "ledger draining");
        assertThat(pools.record("shared").backends()).containsExactly("mc"); // fields of another type read as absent

        GenericKubernetesResource secret = resource(SECRET);
        RecordItemStore<Boolean> settings = store(ClusterKind.SECRET, (o, ns) -> ClusterObjects.dtypeOwned(o));
        settings.put(settings.getKey(secret), secret);
        assertThat(settings.record("gpustack-system/gpustack-settings")).isFalse();
    }

    @Test
    void aNamespaceKeepsItsPodSecurityEnforceLabelAndNoOtherSoTheCacheBlendWarningStillSeesIt() {
        GenericKubernetesResource ns = resource("""
                apiVersion: v1
                kind: Namespace
                metadata:
                  name: workload
                  resourceVersion: "7"
                  labels: {pod-security.kubernetes.io/enforce: baseline, team: a}
                """);
        RecordItemStore<NamespaceLabels> store = new RecordItemStore<>("v1", "Namespace",
                Set.of(NamespaceLabels.PSS_ENFORCE), (o, n) -> ClusterObjects.namespaceLabels(o));
        store.put(store.getKey(ns), ns);

        assertThat(store.record("workload").labels())
                .containsExactly(Map.entry(NamespaceLabels.PSS_ENFORCE, "baseline"));
        assertThat(store.record("workload").podSecurityEnforce()).contains("baseline");
    }

    @Test
    void theInformerReportsAddsUpdatesDeletionsAndWhatARelistDroppedAndLookupsSeeTheNewestRecord() {
        AtomicInteger mapped = new AtomicInteger();
        RecordItemStore<KvCachePoolBinding> store = store(ClusterKind.KV_CACHE_POOL_BINDING, (o, ns) -> {
            mapped.incrementAndGet();
            return ClusterObjects.binding(o, ns);
        });
        List<String> events = new ArrayList<>();
        ProcessorStore<GenericKubernetesResource> informer = informer(store, events);

        // the first list: fabric8 defers the adds until the list is complete, then hands over the stored objects
        informer.update(List.of(binding("chat", "1", "bfloat16", false)));
        assertThat(events).isEmpty();
        informer.retainAll(Set.of("team-a/chat"), null);
        assertThat(events).containsExactly("add team-a/chat v1");
        assertThat(store.record("team-a/chat").dtype()).isEqualTo("bfloat16");

        // an update: the handler gets the stored object as oldObj, the lookup the new record
        informer.update(binding("chat", "2", "float16", false));
        assertThat(events).endsWith("update team-a/chat v1 -> v2");
        assertThat(store.record("team-a/chat").dtype()).isEqualTo("float16");

        // the same version again (a relist): no event, and the record is not mapped again
        KvCachePoolBinding before = store.record("team-a/chat");
        int mappings = mapped.get();
        informer.update(binding("chat", "2", "float16", false));
        assertThat(store.record("team-a/chat")).isSameAs(before);
        assertThat(mapped.get()).isEqualTo(mappings);

        informer.add(binding("other", "3", "bfloat16", false));
        assertThat(events).endsWith("add team-a/other v3");

        // a relist that no longer has "other": fabric8 removes it and reports the stored object
        informer.update(List.of(binding("chat", "2", "float16", false)));
        informer.retainAll(Set.of("team-a/chat"), null);
        assertThat(events).endsWith("delete team-a/other v3 (final state unknown)");
        assertThat(store.record("team-a/other")).isNull();
        assertThat(store.record("team-a/chat").dtype()).isEqualTo("float16");

        // a deletion seen by the watch: the handler gets the object as read
        informer.delete(binding("chat", "4", "float16", true));
        assertThat(events).endsWith("delete team-a/chat v4");
        assertThat(store.record("team-a/chat")).isNull();
        assertThat(informer.list()).isEmpty();
        assertThat(store.size()).isZero();
    }

    @Test
    void recordsHoldTheValuesManyObjectsRepeatOnceSoTenThousandBindingsDoNotHoldTenThousandCopies() {
        RecordItemStore<KvCachePoolBinding> store = store(ClusterKind.KV_CACHE_POOL_BINDING, ClusterObjects::binding);
        for (String name : List.of("chat", "code")) { // each decoded on its own, as the informer reads them
            GenericKubernetesResource binding = binding(name, "1", "bfloat16", false);
            store.put(store.getKey(binding), binding);
        }
        KvCachePoolBinding chat = store.record("team-a/chat");
        KvCachePoolBinding code = store.record("team-a/code");
        assertThat(chat.namespace()).isSameAs(code.namespace());
        assertThat(chat.poolName().orElseThrow()).isSameAs(code.poolName().orElseThrow());
        assertThat(chat.dtype()).isSameAs(code.dtype());
        assertThat(chat.name()).isNotEqualTo(code.name());
    }

    @Test
    void aClusterScopedObjectIsKeyedByNameAndHandedBackWithoutANamespace() {
        RecordItemStore<KvCachePool> store = store(ClusterKind.KV_CACHE_POOL, (o, ns) -> ClusterObjects.pool(o));
        GenericKubernetesResource pool = resource(POOL);
        assertThat(store.getKey(pool)).isEqualTo("shared");
        assertThat(store.put("shared", pool)).isNull();

        GenericKubernetesResource stored = store.get("shared");
        assertThat(stored.getApiVersion()).isEqualTo("worker.gpustack.ai/v1alpha1");
        assertThat(stored.getKind()).isEqualTo("KVCachePool");
        assertThat(stored.getMetadata().getName()).isEqualTo("shared");
        assertThat(stored.getMetadata().getNamespace()).isNull();
        assertThat(stored.getMetadata().getResourceVersion()).isEqualTo("12");
        assertThat(store.getKey(stored)).isEqualTo("shared");
        assertThat(store.keySet()).containsExactly("shared");
        assertThat(store.values()).extracting(store::getKey).containsExactly("shared");
        assertThat(store.remove("shared").getMetadata().getName()).isEqualTo("shared");
        assertThat(store.get("shared")).isNull();
    }

    @Test
    void resourceVersionsAreHandedBackAsTheServerWroteThem() {
        RecordItemStore<KvCachePoolBinding> store = store(ClusterKind.KV_CACHE_POOL_BINDING, ClusterObjects::binding);
        for (String version : List.of("0", "7", "007", "123456789012345678", "12345678901234567890", "v-9", "")) {
            store.put("team-a/chat", binding("chat", version, "bfloat16", false));
            assertThat(store.get("team-a/chat").getMetadata().getResourceVersion()).isEqualTo(version);
        }
        GenericKubernetesResource none = binding("chat", "1", "bfloat16", false);
        none.getMetadata().setResourceVersion(null);
        store.put("team-a/chat", none);
        assertThat(store.get("team-a/chat").getMetadata().getResourceVersion()).isNull();
    }

    @Test
    void aMappingThatThrowsNeitherStopsTheInformerNorHidesTheErrorFromTheLookup() {
        IllegalStateException failure = new IllegalStateException("unreadable");
        BiFunction<Map<String, Object>, String, KvCachePoolBinding> mapping = (o, ns) -> {
            if (ClusterObjects.name(o).orElse("").equals("broken")) {
                throw failure;
            }
            return ClusterObjects.binding(o, ns);
        };
        RecordItemStore<KvCachePoolBinding> store = store(ClusterKind.KV_CACHE_POOL_BINDING, mapping);
        List<String> events = new ArrayList<>();
        ProcessorStore<GenericKubernetesResource> informer = informer(store, events);
        informer.update(List.of(binding("broken", "1", "bfloat16", false), binding("chat", "2", "bfloat16", false)));
        informer.retainAll(Set.of("team-a/broken", "team-a/chat"), null);

        assertThat(events).containsExactlyInAnyOrder("add team-a/broken v1", "add team-a/chat v2");
        assertThatThrownBy(() -> store.record("team-a/broken")).isSameAs(failure);
        assertThat(store.record("team-a/chat").name()).isEqualTo("chat");
    }

    private static <R> RecordItemStore<R> store(ClusterKind kind, BiFunction<Map<String, Object>, String, R> mapping) {
        return new RecordItemStore<>(kind.apiVersion(), kind.kind(), Set.of(), mapping);
    }

    /** fabric8's own processing of lists and watch events over {@code store}, reporting to one recording handler. */
    private static ProcessorStore<GenericKubernetesResource> informer(RecordItemStore<?> store, List<String> events) {
        CacheImpl<GenericKubernetesResource> cache = new CacheImpl<>();
        cache.removeIndexer(CacheImpl.NAMESPACE_INDEX); // as WatchedKind does
        cache.setItemStore(store);
        SharedProcessor<GenericKubernetesResource> processor = new SharedProcessor<>(); // runs each event at once
        processor.addProcessorListener(new ResourceEventHandler<>() {
            @Override
            public void onAdd(GenericKubernetesResource obj) {
                events.add("add " + describe(obj));
            }

            @Override
            public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
                events.add("update " + describe(oldObj) + " -> v" + newObj.getMetadata().getResourceVersion());
            }

            @Override
            public void onDelete(GenericKubernetesResource obj, boolean deletedFinalStateUnknown) {
                events.add("delete " + describe(obj) + (deletedFinalStateUnknown ? " (final state unknown)" : ""));
            }
        }, 0, List::of);
        return new ProcessorStore<>(cache, processor);
    }

    private static String describe(GenericKubernetesResource obj) {
        return obj.getMetadata().getNamespace() + "/" + obj.getMetadata().getName() + " v"
                + obj.getMetadata().getResourceVersion();
    }

    private static GenericKubernetesResource binding(String name, String version, String dtype, boolean deleting) {
        return resource(BINDING.formatted(name, version,
                deleting ? "deletionTimestamp: \"2026-01-02T00:00:00Z\"" : "", dtype));
    }

    private static GenericKubernetesResource resource(String yaml) {
        return JSON.unmarshal(yaml, GenericKubernetesResource.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> tree(GenericKubernetesResource object) {
        return JSON.convertValue(object, Map.class);
    }
}
