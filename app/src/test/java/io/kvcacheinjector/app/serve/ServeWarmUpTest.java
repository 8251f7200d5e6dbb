package io.kvcacheinjector.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvcacheinjector.adapters.http.AdmissionAnswer;
import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.adapters.http.server.WarmUp;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.app.engines.BuiltInEngines;
import io.kvcacheinjector.domain.Webhook;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code serve --warm-up-reviews}: not ready until warm, and nothing of the warm-up seen by the cluster's users. */
class ServeWarmUpTest {
    @TempDir
    Path tmp;

    @Test
    void theWarmUpsReviewsTakeTheInjectionPathOverItsOwnClusterAsTheRealOnesDo() throws Exception {
        WarmUp warmUp = ServeWarmUp.of(10, BuiltInEngines.engines(), true, "kvcache-injector");
        AdmissionHandler handler = warmUp.handler();
        List<String> patched = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (WarmUp.Request r : warmUp.requests()) {
            AdmissionAnswer answer = handler.handle(r.webhook(), r.body());
            assertThat(answer.status()).isEqualTo(200);
            JsonNode response = ServeTesting.JSON.readTree(answer.body()).get("response");
            String name = ServeTesting.JSON.readTree(r.body()).at("/request/object/metadata/generateName").asText();
            if (response.get("allowed").asBoolean() && response.has("patch")) {
                patched.add(r.webhook().path() + " " + name);
            } else if (!response.get("allowed").asBoolean()) {
                refused.add(response.at("/auditAnnotations/refusal").asText());
            }
        }
        // five Pods injected (one of them by the CacheBlend webhook), one refused with its catalogue code: the paths
        // real reviews take, not the "not opted in" shortcut
        assertThat(patched).hasSize(5).anySatisfy(p -> assertThat(p).startsWith(Webhook.CACHEBLEND_MUTATE.path()));
        assertThat(refused).containsExactly("launch-shell-c");
        assertThat(ServeWarmUp.of(10, BuiltInEngines.engines(), false, "kvcache-injector").requests())
                .noneMatch(r -> r.webhook() == Webhook.CACHEBLEND_MUTATE);
    }

    @Test
    void notReadyWhileWarmingUpThenReadyWithTheWarmUpNeitherCountedNorLogged() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        Path ca = tmp.resolve("ca.pem");
        ServeOptions options = ServeOptions.parse(new String[]{"--cluster", ServeTesting.EXAMPLES.resolve("cluster")
                .toString(), "--host", "127.0.0.1", "--port", "0", "--tls-ca-out", ca.toString(),
                "--warm-up-reviews", "10000"}, Map.of());
        try (ServeRuntime runtime = ServeRuntime.start(options, new JsonLog(log::add, Clock.systemUTC()),
                Clock.systemUTC())) {
            SSLContext client = ServeTesting.trusting(ca);
            ServeTesting.Response first = ServeTesting.request(client, runtime.port(), "GET", "/readyz", null);
            assertThat(first.status()).isEqualTo(503);
            assertThat(first.body()).startsWith("not ready: warming up (").contains(" of 10000 reviews sent)");

            long deadline = System.nanoTime() + 120_000_000_000L;
            ServeTesting.Response ready = first;
            while (ready.status() != 200 && System.nanoTime() < deadline) {
                Thread.sleep(200);
                ready = ServeTesting.request(client, runtime.port(), "GET", "/readyz", null);
            }
            assertThat(ready.status()).as("readiness after the warm-up: %s", ready.body()).isEqualTo(200);
            assertThat(log).filteredOn(l -> l.contains("\"event\":\"warm-up-done\"")).singleElement()
                    .satisfies(l -> assertThat(l).contains("\"reviews\":10000,\"answered200\":10000,"));
            JsonNode done = ServeTesting.JSON.readTree(log.stream()
                    .filter(l -> l.contains("\"event\":\"warm-up-done\"")).findFirst().orElseThrow());
            // a new connection, a new TLS handshake, every 100 reviews on each of the two connections
            assertThat(done.get("connections").asInt()).isBetween(100, 102);
            assertThat(log).noneMatch(l -> l.contains("\"event\":\"admission-review\""));

            String metrics = ServeTesting.request(client, runtime.port(), "GET", "/metrics", null).body();
            // the served counters stay at zero: the warm-up's reviews are counted in metrics of their own
            assertThat(metrics).contains("kvcache_injector_admissions_total{")
                    .doesNotContainPattern("kvcache_injector_admissions_total\\{[^}]*\\} [1-9]");
            ServeTesting.request(client, runtime.port(), "POST", "/kvcache/mutate",
                    ServeTesting.review("u-after", "CREATE", ServeTesting.examplePod("refused-shell.yaml"), null));
            assertThat(ServeTesting.request(client, runtime.port(), "GET", "/metrics", null).body())
                    .contains("kvcache_injector_admissions_total{outcome=\"refused\",reason=\"launch-shell-c\","
                            + "webhook=\"kvcache/mutate\"} 1.0\n");
        }
    }
}
