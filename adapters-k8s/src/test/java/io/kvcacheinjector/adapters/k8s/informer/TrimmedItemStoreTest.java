package io.kvcacheinjector.adapters.k8s.informer;

import java.util.Set;
import io.kvcacheinjector.domain.cluster.NamespaceLabels;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kvcacheinjector.domain.cluster.ClusterObjects;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The informer cache keeps only what the contracts read: every record the webhook maps from a trimmed object equals
 * the one mapped from the object as the API server sent it, and the bulky fields nobody reads are gone.
 */
class TrimmedItemStoreTest {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private static final String BINDING = """
            apiVersion: worker.gpustack.ai/v1alpha1
            kind: KVCachePoolBinding
            metadata:
              name: chat
              namespace: team-a
              uid: 3b1f0c1e-0000-4000-8000-000000000001
              resourceVersion: "4711"
              generation: 3
              creationTimestamp: "2026-01-01T00:00:00Z"
              deletionTimestamp: "2026-01-02T00:00:00Z"
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
              domain: {name: team-a-chat, dtype: bfloat16}
            """;

    private static final String POOL = """
            apiVersion: worker.gpustack.ai/v1alpha1
            kind: KVCachePool
            metadata:
              name: shared
              resourceVersion: "12"
              managedFields: [{manager: operator, operation: Update, fieldsType: FieldsV1, fieldsV1: {"f:status": {}}}]
            spec:
              backends: [mc]
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
              model-deployment-kv-cache-dtype-owned: dHJ1ZQ==
            """;

    @Test
    void aBindingMapsToTheSameRecordAndLosesManagedFieldsLabelsAndAnnotations() {
        GenericKubernetesResource original = resource(BINDING);
        GenericKubernetesResource trimmed = TrimmedItemStore.trim(original);

        assertThat(ClusterObjects.binding(tree(trimmed), "team-a"))
                .isEqualTo(ClusterObjects.binding(tree(original), "team-a"));
        assertThat(ClusterObjects.binding(tree(trimmed), "team-a").toString()).contains("chat", "shared");
        assertThat(trimmed.getMetadata().getManagedFields()).isEmpty();
        assertThat(trimmed.getMetadata().getAnnotations()).isEmpty();
        assertThat(trimmed.getMetadata().getLabels()).isEmpty();
        assertThat(trimmed.getMetadata().getFinalizers()).isEmpty();
        assertThat(trimmed.getMetadata().getResourceVersion()).isEqualTo("4711");
        assertThat(trimmed.getMetadata().getDeletionTimestamp()).isEqualTo("2026-01-02T00:00:00Z");
        assertThat(JSON.asJson(trimmed).length()).isLessThan(JSON.asJson(original).length() / 2);
        // the object the informer handed over is not changed
        assertThat(original.getMetadata().getManagedFields()).hasSize(1);
    }

    @Test
    void aPoolKeepsItsStatusAndASecretItsData() {
        GenericKubernetesResource pool = resource(POOL);
        assertThat(ClusterObjects.pool(tree(TrimmedItemStore.trim(pool)))).isEqualTo(ClusterObjects.pool(tree(pool)));
        assertThat(ClusterObjects.pool(tree(TrimmedItemStore.trim(pool))).toString()).contains("Draining");

        GenericKubernetesResource secret = resource(SECRET);
        GenericKubernetesResource trimmed = TrimmedItemStore.trim(secret);
        assertThat(trimmed.getAdditionalProperties()).containsOnlyKeys("data");
        assertThat(trimmed.getMetadata().getAnnotations()).isEmpty();
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
        TrimmedItemStore store = new TrimmedItemStore(Set.of(NamespaceLabels.PSS_ENFORCE));
        store.put(store.getKey(ns), ns);
        GenericKubernetesResource kept = store.get("workload");

        assertThat(kept.getMetadata().getLabels()).containsExactly(Map.entry(NamespaceLabels.PSS_ENFORCE, "baseline"));
        assertThat(ClusterObjects.namespaceLabels(tree(kept)).podSecurityEnforce()).contains("baseline");
        assertThat(TrimmedItemStore.trim(ns).getMetadata().getLabels()).isEmpty();
    }

    @Test
    void theStoreIsKeyedLikeTheInformersOwnAndHoldsTheTrimmedCopy() {
        TrimmedItemStore store = new TrimmedItemStore();
        GenericKubernetesResource binding = resource(BINDING);
        String key = store.getKey(binding);
        assertThat(key).isEqualTo("team-a/chat");
        assertThat(store.put(key, binding)).isNull();
        assertThat(store.get(key).getMetadata().getManagedFields()).isEmpty();
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.keySet()).containsExactly("team-a/chat");
        assertThat(store.remove(key)).isNotNull();
        assertThat(store.get(key)).isNull();
        assertThat(store.getKey(resource(POOL))).isEqualTo("shared");
    }

    private static GenericKubernetesResource resource(String yaml) {
        return JSON.unmarshal(yaml, GenericKubernetesResource.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> tree(GenericKubernetesResource object) {
        return JSON.convertValue(object, Map.class);
    }
}
