package io.kvcacheinjector.engines.vllm.cacheblend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.cacheblend.engine.EngineRendering;
import io.kvcacheinjector.domain.cacheblend.engine.RenderContext;
import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.ports.testing.EngineContractTest;
import io.kvcacheinjector.ports.service.CacheBlendInjection;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.testing.FakeClusterDirectory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The connection ConfigMap the controller renders is what the webhook reads: the seed's engine
 * ({@code tensormesh-operator/tensormesh-cacheblend}) rendered by {@code EngineRendering}, its ConfigMap put in the
 * cluster view as it is, and a seed-style vLLM Pod in {@code cacheblend-workload} comes back fully injected with the
 * ConfigMap's JSON as the {@code --kv-transfer-config} value, verbatim.
 */
class EngineConnectionRoundTripTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @SuppressWarnings("unchecked")
    void theRenderedConnectionConfigMapYieldsTheDocumentedInjection() throws Exception {
        Map<String, Object> engine = JSON.readValue("""
                {"apiVersion": "lmcache.lmcache.ai/v1alpha1", "kind": "CacheBlendEngine",
                 "metadata": {"name": "tensormesh-cacheblend", "namespace": "tensormesh-operator", "uid": "u-1"},
                 "spec": {"l1": {"sizeGB": 60},
                          "injection": {"payloadImage": {"repository": "tensormesh/cacheblend-plugin", "tag": "v0.5.3"},
                                        "imagePullSecrets": [{"name": "cacheblend-plugin-pull"}]}}}""", Map.class);
        EngineRendering.Rendered rendered = (EngineRendering.Rendered) EngineRendering.render(engine, "default",
                RenderContext.offline());
        Map<String, Object> configMap = rendered.children().stream()
                .filter(c -> "ConfigMap".equals(c.get("kind"))).findFirst().orElseThrow();
        // through JSON, as the API server stores and the informer reads it
        FakeClusterDirectory cluster = new FakeClusterDirectory()
                .add(JSON.readValue(JSON.writeValueAsString(engine), Map.class))
                .add(JSON.readValue(JSON.writeValueAsString(configMap), Map.class));
        String kvConfig = ((Map<String, String>) configMap.get("data")).get("kv-transfer-config.json");

        JsonNode pod = JSON.readTree("""
                {"apiVersion": "v1", "kind": "Pod",
                 "metadata": {"name": "vllm", "namespace": "cacheblend-workload",
                              "labels": {"lmcache.ai/cacheblend-inject": "true"},
                              "annotations": {"lmcache.ai/cacheblend-engine": "tensormesh-operator/tensormesh-cacheblend"}},
                 "spec": {"containers": [{"name": "vllm", "image": "lmcache/vllm-openai:v0.5.3",
                                          "args": ["Qwen/Qwen3-8B"]}]}}""");
        Decision d = new CacheBlendInjection(cluster, EngineContractTest.installedWithStandIns(),
                CacheBlendSettings.of("tensormesh-operator", false, "tensormesh-operator"))
                .mutate("cacheblend-workload", new ReceivedPod(JSON.convertValue(pod, Object.class)));

        assertThat(d).isInstanceOf(Decision.Admit.class);
        JsonNode injected = apply(pod, ((Decision.Admit) d).patch());
        assertThat(injected.at("/metadata/annotations/lmcache.ai~1cacheblend-injected").asText()).isEqualTo("true");
        assertThat(injected.at("/spec/hostIPC").asBoolean()).isTrue();
        assertThat(injected.at("/spec/initContainers/0/name").asText()).isEqualTo("cb-plugin-stage");
        assertThat(injected.at("/spec/initContainers/0/image").asText()).isEqualTo("tensormesh/cacheblend-plugin:v0.5.3");
        assertThat(injected.at("/spec/imagePullSecrets/0/name").asText()).isEqualTo("cacheblend-plugin-pull");
        List<String> args = new ArrayList<>();
        injected.at("/spec/containers/0/args").forEach(a -> args.add(a.asText()));
        assertThat(args).containsSubsequence("--attention-backend", "CUSTOM");
        assertThat(args).containsSubsequence("--kv-transfer-config", kvConfig);
        assertThat(kvConfig).contains("\"lmcache.mp.host\": \"tcp://tensormesh-cacheblend.tensormesh-operator.svc.cluster.local\"")
                .contains("\"lmcache.mp.port\": \"5555\"");
    }

    private static JsonNode apply(JsonNode target, List<PatchOp> patch) {
        ArrayNode ops = JSON.createArrayNode();
        for (PatchOp op : patch) {
            ObjectNode n = ops.addObject();
            n.put("op", op.op().json());
            n.put("path", op.path());
            if (op.op() != PatchOp.Op.REMOVE) {
                n.set("value", JSON.valueToTree(op.value()));
            }
        }
        return JsonPatch.apply(ops, target);
    }
}
