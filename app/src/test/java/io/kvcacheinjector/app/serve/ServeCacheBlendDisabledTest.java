package io.kvcacheinjector.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --disable-cacheblend} on the README's example cluster (which does hold a CacheBlendEngine): the
 * kvcache webhooks work as before; a Pod that reaches the CacheBlend path anyway is told that the contract is off.
 */
class ServeCacheBlendDisabledTest {
    @TempDir
    static Path tmp;

    private static final List<String> LOG = new CopyOnWriteArrayList<>();
    private static ServeRuntime runtime;
    private static SSLContext client;

    @BeforeAll
    static void start() throws Exception {
        Path ca = tmp.resolve("kvcache-ca.pem");
        ServeOptions options = ServeOptions.parse(new String[]{"--cluster", ServeTesting.EXAMPLES.resolve("cluster")
                .toString(), "--host", "127.0.0.1", "--port", "0", "--tls-ca-out", ca.toString(),
                "--disable-cacheblend"}, Map.of());
        runtime = ServeRuntime.start(options, new JsonLog(LOG::add, Clock.systemUTC()), Clock.systemUTC());
        client = ServeTesting.trusting(ca);
    }

    @AfterAll
    static void stop() {
        runtime.close();
    }

    private static JsonNode post(String path, byte[] body) throws Exception {
        ServeTesting.Response r = ServeTesting.request(client, runtime.port(), "POST", path, body);
        assertThat(r.status()).isEqualTo(200);
        return ServeTesting.JSON.readTree(r.body()).get("response");
    }

    @Test
    void theKvCacheWebhookStillInjectsAndTheViewIsReady() throws Exception {
        JsonNode response = post("/kvcache/mutate",
                ServeTesting.review("u-vllm", "CREATE", ServeTesting.examplePod("vllm.yaml"), null));

        assertThat(response.get("allowed").asBoolean()).isTrue();
        assertThat(response.has("patch")).isTrue();
        assertThat(ServeTesting.request(client, runtime.port(), "GET", "/readyz", null).status()).isEqualTo(200);
    }

    @Test
    void aCacheBlendPodIsAdmittedUnpatchedWithAWarningNamingTheFlag() throws Exception {
        JsonNode response = post("/cacheblend/mutate",
                ServeTesting.review("u-blend", "CREATE", ServeTesting.examplePod("cacheblend.yaml"), null));

        assertThat(response.get("allowed").asBoolean()).as("CacheBlend fails open unless fail-closed").isTrue();
        JsonNode patch = ServeTesting.JSON.readTree(Base64.getDecoder().decode(response.get("patch").asText()));
        assertThat(patch).as("nothing injected, only the skip recorded").hasSize(1);
        assertThat(patch.get(0).get("path").asText()).isEqualTo("/metadata/annotations/lmcache.ai~1cacheblend-skip-reason");
        assertThat(patch.get(0).get("value").asText()).isEqualTo("lookup-failed");
        assertThat(response.get("warnings").get(0).asText()).startsWith("lookup-failed: ")
                .contains("CacheBlendEngine team-a/cacheblend could not be read")
                .contains("the CacheBlend contract is disabled on this webhook (--disable-cacheblend)")
                .contains("cacheBlend.contract.enabled=true");
    }

    @Test
    void theStartUpLogSaysTheContractIsDisabled() {
        assertThat(LOG).anySatisfy(l -> assertThat(l).contains("\"event\":\"cluster-view\"")
                .contains("CacheBlend contract disabled (--disable-cacheblend)"));
    }
}
