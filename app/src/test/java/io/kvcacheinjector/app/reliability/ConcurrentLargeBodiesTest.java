package io.kvcacheinjector.app.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Near-limit hostile bodies arriving together must not exhaust the chart's 128 MiB heap: decoding a 3 MiB body of
 * empty objects costs ~65 MB, and before the handler's decode budget two of them at once crashed the process
 * (ExitOnOutOfMemoryError), leaving every opted-in Pod unable to start until it restarted.
 */
class ConcurrentLargeBodiesTest {
    @TempDir
    Path dir;

    @Test
    void fourConcurrentNearLimitBodiesAreAnsweredAndTheServerStaysUp() throws Exception {
        try (ServeProcess serve = ServeProcess.start(dir, GeneratedHostileReviewsTest.CHART_JVM,
                List.of("--cluster", Path.of("..", "docs", "examples", "cluster").toString(), "--tls-ca-out",
                        dir.resolve("ca.pem").toString()), Map.of())) {
            SSLContext tls = WebhookClient.trusting(dir.resolve("ca.pem"));
            List<WebhookClient> clients = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            try (WebhookClient probe = new WebhookClient(tls, serve.port(), Duration.ofSeconds(60))) {
                while (probe.get("/readyz").status() != 200) {
                    assertThat(System.nanoTime()).as("ready within 60 s\n%s", serve.tails()).isLessThan(deadline);
                    Thread.sleep(100);
                }
                // a review of a Pod (without the opt-in label) whose spec holds [{},{},...]: just under 3 MiB
                StringBuilder b = new StringBuilder("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                        + "\"request\":{\"uid\":\"u-big\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
                        + "\"operation\":\"CREATE\",\"namespace\":\"team-a\",\"object\":{\"metadata\":{\"name\":\"big\"},"
                        + "\"spec\":{\"x\":[");
                while (b.length() < 3 * 1024 * 1024 - 64) {
                    b.append("{},");
                }
                b.append("{}]}}}}");
                byte[] body = b.toString().getBytes(StandardCharsets.UTF_8);
                ExecutorService pool = Executors.newFixedThreadPool(4);
                try {
                    for (int round = 0; round < 3; round++) {
                        List<Future<Integer>> answers = new ArrayList<>();
                        for (int i = 0; i < 4; i++) {
                            WebhookClient c = new WebhookClient(tls, serve.port(), Duration.ofSeconds(60));
                            clients.add(c);
                            answers.add(pool.submit(() -> c.post("/kvcache/mutate", body).status()));
                        }
                        for (Future<Integer> a : answers) {
                            assertThat(a.get(120, TimeUnit.SECONDS)).as("the review is answered\n%s", serve.tails())
                                    .isEqualTo(200);
                        }
                    }
                } finally {
                    pool.shutdownNow();
                }
                assertThat(probe.get("/healthz").status()).as("the server is still up\n%s", serve.tails()).isEqualTo(200);
            } finally {
                for (WebhookClient c : clients) {
                    c.close();
                }
            }
        }
    }
}
