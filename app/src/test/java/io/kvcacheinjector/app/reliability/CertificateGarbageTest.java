package io.kvcacheinjector.app.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.tls.Pem;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code serve} with its certificate from files mounted as a Secret, while reviews keep coming: the files are
 * replaced with garbage of every kind. Each time, an error is logged, new connections still get the old certificate,
 * the server stays ready and every review is answered; then a valid rotation is taken without a restart.
 */
class CertificateGarbageTest {
    @TempDir
    Path dir;

    @Test
    void garbageCertificateFilesKeepTheOldCertificateInUseAndAreLoggedWhileReviewsFlow() throws Exception {
        SecretVolume secret = new SecretVolume(dir.resolve("tls"));
        SelfSignedCertificate first = secret.rotate(Clock.systemUTC());
        SelfSignedCertificate next = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
        SelfSignedCertificate other = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
        SelfSignedCertificate expired = SelfSignedCertificate.forLocalhost(
                Clock.fixed(Instant.now().minus(Duration.ofDays(400)), ZoneOffset.UTC));
        SSLContext trust = WebhookClient.trusting(List.of(first.ca(), next.ca()));
        byte[] noise = new byte[4096];
        new Random(7).nextBytes(noise);

        Map<String, byte[][]> garbage = new LinkedHashMap<>();
        garbage.put("random bytes", new byte[][]{noise, noise});
        garbage.put("empty files", new byte[][]{new byte[0], new byte[0]});
        garbage.put("a PEM block of garbage", new byte[][]{
                ascii("-----BEGIN CERTIFICATE-----\nZ2FyYmFnZQ==\n-----END CERTIFICATE-----\n"),
                ascii("-----BEGIN PRIVATE KEY-----\nZ2FyYmFnZQ==\n-----END PRIVATE KEY-----\n")});
        String nextChain = Pem.write(next.serving().chain());
        garbage.put("a certificate cut in half", new byte[][]{ascii(nextChain.substring(0, nextChain.length() / 2)),
                ascii(Pem.write(next.serving().key()))});
        garbage.put("a key that belongs to another certificate", new byte[][]{ascii(nextChain),
                ascii(Pem.write(other.serving().key()))});
        garbage.put("an expired certificate", new byte[][]{ascii(Pem.write(expired.serving().chain())),
                ascii(Pem.write(expired.serving().key()))});
        garbage.put("certificate and key swapped", new byte[][]{ascii(Pem.write(next.serving().key())),
                ascii(nextChain)});

        try (ServeProcess serve = ServeProcess.start(dir.resolve("serve"), GeneratedHostileReviewsTest.CHART_JVM,
                List.of("--cluster", Path.of("..", "docs", "examples", "cluster").toString(),
                        "--tls-cert", secret.certificate().toString(), "--tls-key", secret.key().toString()),
                Map.of());
             WebhookClient client = new WebhookClient(trust, serve.port())) {
            X509Certificate served = client.servedCertificate();
            assertThat(served).isEqualTo(first.serving().leaf());
            byte[] review = ExampleReviews.create("uid-vllm", ExampleReviews.vllmPod());
            String expected = client.post("/kvcache/mutate", review).text();
            assertThat(expected).contains("\"allowed\":true").contains("\"patchType\":\"JSONPatch\"");

            List<String> wrong = new CopyOnWriteArrayList<>();
            AtomicBoolean running = new AtomicBoolean(true);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            List<Future<Integer>> loops = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                boolean fresh = w == 1;
                loops.add(pool.submit(() -> {
                    int n = 0;
                    long end = System.nanoTime() + Duration.ofMinutes(5).toNanos();
                    while (running.get() && System.nanoTime() < end) {
                        try {
                            if (fresh) {
                                // a new connection each time: it must always be served the first certificate
                                X509Certificate now = client.servedCertificate();
                                if (!now.equals(first.serving().leaf()) && !now.equals(next.serving().leaf())) {
                                    wrong.add("served " + now.getSubjectX500Principal());
                                }
                            }
                            WebhookClient.Answer a = client.post("/kvcache/mutate", review);
                            if (a.status() != 200 || !a.text().equals(expected)) {
                                wrong.add(a.status() + " " + HostileOracle.clip(a.text()));
                            }
                        } catch (Exception e) {
                            wrong.add("no answer: " + e);
                        }
                        n++;
                        Thread.sleep(10);
                    }
                    return n;
                }));
            }

            int failures = 0;
            for (Map.Entry<String, byte[][]> g : garbage.entrySet()) {
                secret.write(g.getValue()[0], g.getValue()[1]);
                failures++;
                int expectedFailures = failures;
                awaitTrue("a tls-reload-failed line for " + g.getKey(), () ->
                        serve.events("tls-reload-failed").size() >= expectedFailures);
                assertThat(client.servedCertificate()).as("after %s", g.getKey()).isEqualTo(first.serving().leaf());
                assertThat(client.get("/readyz").status()).as("ready after %s", g.getKey()).isEqualTo(200);
            }
            List<Map<String, Object>> errors = serve.events("tls-reload-failed");
            System.out.println("tls-reload-failed reasons:");
            errors.forEach(e -> System.out.println("  " + e.get("reason")));
            assertThat(errors).hasSize(garbage.size()).allSatisfy(e -> {
                assertThat(e).containsEntry("level", "error")
                        .containsEntry("note", "the previous certificate is still served");
                assertThat((String) e.get("reason")).isNotBlank();
            });
            assertThat(serve.events("tls-reloaded")).isEmpty();

            // a valid rotation after all that is taken without a restart
            secret.write(ascii(nextChain), ascii(Pem.write(next.serving().key())));
            awaitTrue("the new certificate served", () -> next.serving().leaf().equals(servedQuietly(client)));
            assertThat(serve.events("tls-reloaded")).hasSize(1);
            Thread.sleep(500);

            running.set(false);
            int reviews = 0;
            for (Future<Integer> f : loops) {
                reviews += f.get(30, TimeUnit.SECONDS);
            }
            pool.shutdown();
            System.out.println("reviews answered while the files were garbage and then rotated: " + reviews
                    + ", wrong answers: " + wrong.size());
            assertThat(wrong).as("answers that were not the expected review answer").isEmpty();
            assertThat(reviews).isGreaterThan(20);
            assertThat(client.get("/metrics").text())
                    .contains("kvcache_injector_tls_reloads_total{result=\"failed\"} " + (double) garbage.size() + "\n")
                    .contains("kvcache_injector_tls_reloads_total{result=\"applied\"} 1.0\n");
        }
    }

    private static X509Certificate servedQuietly(WebhookClient client) {
        try {
            return client.servedCertificate();
        } catch (Exception e) {
            return null;
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private static void awaitTrue(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("gave up waiting for %s", what).isLessThan(end);
            Thread.sleep(50);
        }
    }
}
