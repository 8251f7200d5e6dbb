package io.kvcacheinjector.app.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.zjsonpatch.JsonPatch;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code serve} as the README runs it, on the example cluster, with the real engines and use cases. */
class ServeRuntimeTest {
    @TempDir
    static Path tmp;

    private static final List<String> LOG = new CopyOnWriteArrayList<>();
    private static ServeRuntime runtime;
    private static SSLContext client;

    @BeforeAll
    static void start() throws Exception {
        Path ca = tmp.resolve("out").resolve("kvcache-ca.pem");
        ServeOptions options = ServeOptions.parse(new String[]{"--cluster", ServeTesting.EXAMPLES.resolve("cluster")
                .toString(), "--host", "127.0.0.1", "--port", "0", "--tls-ca-out", ca.toString()}, Map.of());
        runtime = ServeRuntime.start(options, new JsonLog(LOG::add, Clock.systemUTC()), Clock.systemUTC());
        client = ServeTesting.trusting(ca);
    }

    @AfterAll
    static void stop() {
        runtime.close();
    }

    private static ServeTesting.Response post(String path, byte[] body) throws Exception {
        return ServeTesting.request(client, runtime.port(), "POST", path, body);
    }

    @Test
    void injectsTheReadmeVllmPodOverHttps() throws Exception {
        Map<String, Object> pod = ServeTesting.examplePod("vllm.yaml");

        ServeTesting.Response r = post("/kvcache/mutate", ServeTesting.review("u-vllm", "CREATE", pod, null));

        assertThat(r.status()).isEqualTo(200);
        JsonNode response = ServeTesting.JSON.readTree(r.body()).get("response");
        assertThat(response.get("uid").asText()).isEqualTo("u-vllm");
        assertThat(response.get("allowed").asBoolean()).isTrue();
        JsonNode patch = ServeTesting.JSON.readTree(Base64.getDecoder().decode(response.get("patch").asText()));
        JsonNode patched = JsonPatch.apply(patch, ServeTesting.JSON.valueToTree(pod));
        assertThat(patched.at("/metadata/annotations").has("kvcache.gpustack.ai/injected")).isTrue();
        List<String> args = new ArrayList<>();
        patched.at("/spec/containers/0/args").forEach(a -> args.add(a.asText()));
        assertThat(args).contains("--kv-transfer-config");
        assertThat(LOG).anySatisfy(l -> assertThat(l).contains("\"uid\":\"u-vllm\"").contains("\"outcome\":\"admitted\"")
                .contains("\"generateName\":\"chat-\""));
    }

    @Test
    void refusesTheReadmeShellPodWithItsCode() throws Exception {
        ServeTesting.Response r = post("/kvcache/mutate",
                ServeTesting.review("u-shell", "CREATE", ServeTesting.examplePod("refused-shell.yaml"), null));

        JsonNode response = ServeTesting.JSON.readTree(r.body()).get("response");
        assertThat(response.get("allowed").asBoolean()).isFalse();
        assertThat(response.at("/status/code").asInt()).isEqualTo(403);
        assertThat(response.at("/status/message").asText()).startsWith("launch-shell-c: ");
        assertThat(response.at("/auditAnnotations/refusal").asText()).isEqualTo("launch-shell-c");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theFreezeRefusesRemovingTheRecord() throws Exception {
        Map<String, Object> oldPod = ServeTesting.examplePod("vllm.yaml");
        Map<String, Object> oldMetadata = (Map<String, Object>) oldPod.get("metadata");
        Map<String, Object> annotations = new HashMap<>((Map<String, Object>) oldMetadata.get("annotations"));
        annotations.put("kvcache.gpustack.ai/injected", "{\"engine\":\"vllm\"}");
        oldMetadata.put("annotations", annotations);
        Map<String, Object> newPod = ServeTesting.examplePod("vllm.yaml");

        ServeTesting.Response r = post("/kvcache/validate", ServeTesting.review("u-freeze", "UPDATE", newPod, oldPod));

        JsonNode response = ServeTesting.JSON.readTree(r.body()).get("response");
        assertThat(response.get("allowed").asBoolean()).isFalse();
        assertThat(response.at("/auditAnnotations/refusal").asText()).isEqualTo("frozen-record");
    }

    @Test
    void cacheblendInjectsTheExamplePod() throws Exception {
        ServeTesting.Response r = post("/cacheblend/mutate",
                ServeTesting.review("u-blend", "CREATE", ServeTesting.examplePod("cacheblend.yaml"), null));

        JsonNode response = ServeTesting.JSON.readTree(r.body()).get("response");
        assertThat(response.get("allowed").asBoolean()).isTrue();
        assertThat(response.has("patch")).isTrue();
        assertThat(response.has("auditAnnotations") && response.at("/auditAnnotations/skip-reason").isMissingNode()
                || !response.has("auditAnnotations")).isTrue();
    }

    @Test
    void isReadyAndExposesMetricsAfterServing() throws Exception {
        assertThat(ServeTesting.request(client, runtime.port(), "GET", "/readyz", null).status()).isEqualTo(200);
        post("/kvcache/mutate", ServeTesting.review("u-m", "CREATE", ServeTesting.examplePod("refused-shell.yaml"), null));
        String metrics = ServeTesting.request(client, runtime.port(), "GET", "/metrics", null).body();
        assertThat(metrics).contains("kvcache_injector_admissions_total{outcome=\"refused\",reason=\"launch-shell-c\","
                + "webhook=\"kvcache/mutate\"} 1.0\n");
    }

    @Test
    void logsEachLoadedEngineWithItsJar() {
        assertThat(LOG).filteredOn(l -> l.contains("\"event\":\"engine-loaded\"")).hasSize(3)
                .anySatisfy(l -> assertThat(l).contains("\"id\":\"vllm-ascend\"").contains("\"jar\":"));
    }

    @Test
    void aMissingClusterDirectoryStopsStartUpWithItsName() {
        ServeOptions options = ServeOptions.parse(new String[]{"--cluster", tmp.resolve("nope").toString(),
                "--port", "0"}, Map.of());
        assertThatThrownBy(() -> ServeRuntime.start(options, JsonLog.discard(), Clock.systemUTC()))
                .hasMessageContaining(tmp.resolve("nope").getFileName().toString());
    }

    @Test
    void theCaFileIsWrittenAsPem() throws Exception {
        assertThat(Files.readString(tmp.resolve("out").resolve("kvcache-ca.pem")))
                .startsWith("-----BEGIN CERTIFICATE-----");
    }
}
