package io.kvcacheinjector.app.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvcacheinjector.app.engines.PluginJars;
import io.kvcacheinjector.domain.json.Json;
import io.kvcacheinjector.ports.spi.EngineInjector;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drop-in path end to end: the real {@code serve} in a child JVM over HTTPS, its engines folder made of copies
 * of the built-in engine folders plus, or minus, what a user would drop in or take out.
 */
class EnginePluginServeTest {
    private static final Path CLUSTER = Path.of("..", "docs", "examples", "cluster");

    @TempDir
    static Path jars;
    private static Path example;

    @TempDir
    Path dir;

    @BeforeAll
    static void buildTheExampleEngine() {
        example = PluginJars.example(jars);
    }

    /** A Pod that declares the example engine and launches its entry point, with the example cluster's Binding. */
    private static Map<String, Object> examplePod() {
        Map<String, Object> pod = ExampleReviews.pod("vllm.yaml");
        @SuppressWarnings("unchecked")
        Map<String, Object> metadata = (Map<String, Object>) pod.get("metadata");
        metadata.put("annotations", new LinkedHashMap<>(Map.of("kvcache.gpustack.ai/binding", "chat",
                "kvcache.gpustack.ai/engine", "Example")));
        pod.put("spec", Map.of("containers", List.of(Map.of("name", "server", "image", "example/server:1",
                "command", List.of("example-server"), "args", List.of("run", "--model", "m")))));
        return pod;
    }

    @Test
    void aDroppedInEngineInjectsItsPodsAndIsListedInTheLogAndTheMetrics() throws Exception {
        Path engines = PluginJars.builtInsInto(dir.resolve("engines"));
        PluginJars.drop(example, engines, "example");

        try (ServeProcess serve = start(engines, List.of()); WebhookClient client = client(serve)) {
            Map<String, Object> response = review(client, examplePod());

            assertThat(response.get("allowed")).as("%s", response).isEqualTo(true);
            String patch = new String(Base64.getDecoder().decode((String) response.get("patch")), StandardCharsets.UTF_8);
            assertThat(patch).contains("\"--example-store\"", "\"mooncake\"")
                    .contains("EXAMPLE_STORE_MASTER").contains("EXAMPLE_STORE_PROTOCOL")
                    .contains("\\\"engine\\\":\\\"example\\\"");

            assertThat(serve.events("engine-loaded")).extracting(e -> e.get("id"))
                    .containsExactly("example", "sglang", "vllm", "vllm-ascend");
            assertThat(serve.events("engine-loaded")).anySatisfy(e -> {
                assertThat(e).containsEntry("id", "example").containsEntry("version", "1.0.0-test")
                        .containsEntry("folder", engines.resolve("example").toAbsolutePath().toString())
                        .containsEntry("accepts", "engine: Example").containsEntry("entryPoint", "example-server run");
            });
            String metrics = client.get("/metrics").text();
            assertThat(metrics).contains("# TYPE kvcache_injector_engine_info gauge\n",
                    "kvcache_injector_engine_info{accepts=\"engine: Example\",folder=\""
                    + engines.resolve("example").toAbsolutePath() + "\",id=\"example\",name=\"Example\",spi=\""
                    + EngineInjector.SPI_VERSION + "\",version=\"1.0.0-test\"} 1\n");
            assertThat(metrics.lines().filter(l -> l.startsWith("kvcache_injector_engine_info{"))).hasSize(4);
        }
    }

    @Test
    void withoutTheJarTheSamePodIsRefusedNamingTheValuesTheInstalledEnginesAccept() throws Exception {
        Path engines = PluginJars.builtInsInto(dir.resolve("engines"));

        try (ServeProcess serve = start(engines, List.of()); WebhookClient client = client(serve)) {
            Map<String, Object> response = review(client, examplePod());

            assertThat(response.get("allowed")).isEqualTo(false);
            @SuppressWarnings("unchecked")
            String message = (String) ((Map<String, Object>) response.get("status")).get("message");
            assertThat(message).startsWith("engine-invalid: ")
                    .contains("annotation kvcache.gpustack.ai/engine is \"Example\"")
                    .contains("accepted: SGLang, vLLM, in any case")
                    .contains("install an engine plugin that accepts \"Example\"");
        }
    }

    @Test
    void withTheVllmFolderRemovedVllmAscendPodsAreStillInjected() throws Exception {
        Path engines = PluginJars.builtInsInto(dir.resolve("engines"), "vllm");

        try (ServeProcess serve = start(engines, List.of("--disable-cacheblend")); WebhookClient client = client(serve)) {
            Map<String, Object> response = review(client, ExampleReviews.pod("vllm-ascend.yaml"));

            assertThat(response.get("allowed")).as("%s", response).isEqualTo(true);
            String patch = new String(Base64.getDecoder().decode((String) response.get("patch")), StandardCharsets.UTF_8);
            assertThat(patch).contains("AscendStoreConnector");

            Map<String, Object> vllm = review(client, ExampleReviews.vllmPod());
            assertThat(vllm.get("allowed")).isEqualTo(false);
            @SuppressWarnings("unchecked")
            String message = (String) ((Map<String, Object>) vllm.get("status")).get("message");
            assertThat(message).startsWith("engine-invalid: ").contains("\"vLLM\" with no kvcache.gpustack.ai/manufacturer")
                    .contains("engine: vLLM with manufacturer: ascend");
        }
    }

    @Test
    void withTheVllmFolderRemovedAndCacheBlendOnStartUpStopsWithTheFix() {
        Path engines = PluginJars.builtInsInto(dir.resolve("engines"), "vllm");

        assertThatThrownBy(() -> start(engines, List.of()).close())
                .hasMessageContaining("serve exited with 1 before it listened")
                .hasMessageContaining("serve: no engine in " + engines.toAbsolutePath() + " supports CacheBlend")
                .hasMessageContaining("start with --disable-cacheblend");
    }

    @Test
    void aJarBuiltAgainstAnotherSpiMajorVersionStopsStartUpNamingTheJarAndBothVersions() {
        Path engines = PluginJars.builtInsInto(dir.resolve("engines"));
        PluginJars.drop(PluginJars.exampleBuiltAgainst(dir, "2.0"), engines, "example");

        assertThatThrownBy(() -> start(engines, List.of()).close())
                .hasMessageContaining("serve exited with 1 before it listened")
                .hasMessageContaining("\"event\":\"serve-failed\"")
                .hasMessageContaining("serve: the engine io.kvcacheinjector.engines.example.ExampleEngine in "
                        + engines.resolve("example").resolve("example-spi-2.0.jar").toAbsolutePath())
                .hasMessageContaining("built against engine SPI 2.0, and this webhook provides SPI " + EngineInjector.SPI_VERSION);
    }

    private ServeProcess start(Path engines, List<String> more) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("--cluster", CLUSTER.toString(), "--tls-ca-out",
                dir.resolve("ca.pem").toString(), "--engines-dir", engines.toString()));
        args.addAll(more);
        return ServeProcess.start(dir.resolve("serve"), GeneratedHostileReviewsTest.CHART_JVM, args, Map.of());
    }

    private WebhookClient client(ServeProcess serve) throws Exception {
        SSLContext tls = WebhookClient.trusting(dir.resolve("ca.pem"));
        WebhookClient client = new WebhookClient(tls, serve.port(), Duration.ofSeconds(30));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (client.get("/readyz").status() != 200) {
            assertThat(System.nanoTime()).as("ready within 60 s\n%s", serve.tails()).isLessThan(deadline);
            Thread.sleep(100);
        }
        return client;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> review(WebhookClient client, Map<String, Object> pod) throws Exception {
        WebhookClient.Answer answer = client.post("/kvcache/mutate", ExampleReviews.create("u-1", pod));
        assertThat(answer.status()).isEqualTo(200);
        Map<String, Object> review = (Map<String, Object>) Json.parse(answer.text()).orElseThrow();
        return (Map<String, Object>) review.get("response");
    }
}
