package io.kvcacheinjector.app.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Generated hostile AdmissionReviews ({@link HostileReviews}) over HTTPS against the real {@code serve} (file-backed
 * example cluster, the real engines, the chart's heap of 128 MiB and one CPU), each judged by {@link HostileOracle};
 * afterwards the server is still alive, ready, and gives a normal review the same bytes as before.
 *
 * <p>The normal build runs {@value #DEFAULT_CASES} cases; {@code bin/mvn -o -pl app test -Phostile-long} runs
 * 100 000. Properties: {@code kvcache.hostile.cases}, {@code kvcache.hostile.seed} (the first seed; case i uses seed
 * + i), {@code kvcache.hostile.workers} (concurrent clients), {@code kvcache.hostile.maxMinutes} (a bound on the run).
 */
class GeneratedHostileReviewsTest {
    static final long DEFAULT_CASES = 1_500;
    /**
     * The chart's defaults: a 320 Mi container limit at MaxRAMPercentage 41 (a 131 MiB heap; 128 MiB here), one CPU, and the chart's
     * collector and memory options (deploy/helm/kvcache-injector/templates/deployment.yaml; the AOT cache aside, which
     * belongs to the image's jar).
     */
    static final List<String> CHART_JVM = List.of("-Xmx128m", "-XX:ActiveProcessorCount=1", "-XX:+UseSerialGC",
            "-Xmn16m", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30", "-XX:-ShrinkHeapInSteps",
            "-XX:TrimNativeHeapInterval=1000", "-XX:+ExitOnOutOfMemoryError");
    /**
     * Damages that make bodies of megabytes. They are sent one at a time: two 3 MiB bodies of empty objects decoded
     * at once exhaust the chart's 128 MiB heap (a known limit, docs/explanation/reliability.md), and the run is meant
     * to find what is not known yet.
     */
    static final java.util.Set<HostileReviews.Damage> LARGE = java.util.EnumSet.of(HostileReviews.Damage.AMPLIFY,
            HostileReviews.Damage.HUGE_STRING, HostileReviews.Damage.OVERSIZED_LISTS);

    @TempDir
    static Path dir;
    private static ServeProcess serve;
    private static WebhookClient client;

    @BeforeAll
    static void startServe() throws Exception {
        serve = ServeProcess.start(dir, CHART_JVM, List.of("--cluster", Path.of("..", "docs", "examples", "cluster")
                .toString(), "--tls-ca-out", dir.resolve("ca.pem").toString()), Map.of());
        SSLContext tls = WebhookClient.trusting(dir.resolve("ca.pem"));
        client = new WebhookClient(tls, serve.port());
        awaitReady();
    }

    @AfterAll
    static void stopServe() throws Exception {
        if (client != null) {
            client.close();
        }
        if (serve != null) {
            assertThat(serve.stop()).as("exit status after SIGTERM").isZero();
        }
    }

    private static void awaitReady() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (client.get("/readyz").status() != 200) {
            assertThat(System.nanoTime()).as("ready within 60 s\n%s", serve.tails()).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    @Test
    void everyHostileReviewGetsA400A413OrAReasonedAnswerAndNoUnreadablePodIsAdmitted() throws Exception {
        long cases = Long.getLong("kvcache.hostile.cases", DEFAULT_CASES);
        long firstSeed = Long.getLong("kvcache.hostile.seed", 20_261_130L);
        int workers = Integer.getInteger("kvcache.hostile.workers", 4);
        Duration bound = Duration.ofMinutes(Long.getLong("kvcache.hostile.maxMinutes", 60));

        byte[] normal = ExampleReviews.create("uid-normal", ExampleReviews.vllmPod());
        WebhookClient.Answer before = client.post("/kvcache/mutate", normal);
        assertThat(before.status()).isEqualTo(200);
        assertThat(before.text()).contains("\"allowed\":true").contains("\"patchType\":\"JSONPatch\"");

        AtomicLong next = new AtomicLong();
        java.util.concurrent.locks.ReentrantLock oneLargeAtATime = new java.util.concurrent.locks.ReentrantLock();
        LongAdder bytes = new LongAdder();
        AtomicLong maxMillis = new AtomicLong();
        AtomicLong maxMillisSeed = new AtomicLong();
        Map<String, LongAdder> byDamage = new ConcurrentHashMap<>();
        Map<String, LongAdder> byAnswer = new ConcurrentHashMap<>();
        List<String> violations = Collections.synchronizedList(new ArrayList<>());
        LongAdder violationCount = new LongAdder();
        long start = System.nanoTime();
        long deadline = start + bound.toNanos();

        ExecutorService pool = Executors.newFixedThreadPool(workers);
        List<Future<?>> running = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            running.add(pool.submit(() -> {
                long i;
                while ((i = next.getAndIncrement()) < cases && System.nanoTime() < deadline) {
                    HostileReviews.Case c;
                    try {
                        c = HostileReviews.generate(firstSeed + i);
                    } catch (RuntimeException e) {
                        violationCount.increment();
                        violations.add("seed " + (firstSeed + i) + ": the generator failed: " + e);
                        continue;
                    }
                    bytes.add(c.body().length);
                    byDamage.computeIfAbsent(c.damages().toString(), k -> new LongAdder()).increment();
                    long t0 = System.nanoTime();
                    long ms = -1;
                    String verdict;
                    boolean large = c.damages().stream().anyMatch(LARGE::contains);
                    if (large) {
                        oneLargeAtATime.lock();
                    }
                    try {
                        WebhookClient.Answer a = client.post("/" + c.webhook().path(), c.body());
                        ms = (System.nanoTime() - t0) / 1_000_000;
                        verdict = HostileOracle.check(c, a.status(), a.body()).orElse("");
                        byAnswer.computeIfAbsent(answerKind(a), k -> new LongAdder()).increment();
                    } catch (HttpTimeoutException e) {
                        verdict = "no answer within 10 s";
                    } catch (IOException e) {
                        // a 413 may close the connection while a large body is still being written
                        verdict = c.body().length > HostileReviews.LIMIT ? "" : "connection failed: " + e;
                        byAnswer.computeIfAbsent("connection closed", k -> new LongAdder()).increment();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    } finally {
                        if (large) {
                            oneLargeAtATime.unlock();
                        }
                    }
                    synchronized (maxMillis) {
                        if (ms > maxMillis.get()) {
                            maxMillis.set(ms);
                            maxMillisSeed.set(c.seed());
                        }
                    }
                    if (!verdict.isEmpty()) {
                        violationCount.increment();
                        if (violations.size() < 30) {
                            violations.add(c.describe() + ": " + verdict);
                        }
                    }
                }
            }));
        }
        for (Future<?> f : running) {
            f.get();
        }
        pool.shutdown();
        long done = Math.min(next.get(), cases);
        double seconds = (System.nanoTime() - start) / 1e9;

        double slowestServerMs = serve.events("admission-review").stream()
                .mapToDouble(l -> l.get("durationMs") instanceof Number n ? n.doubleValue() : 0).max().orElse(0);
        StringBuilder summary = new StringBuilder();
        summary.append(String.format("hostile reviews: %d cases (seeds %d..%d) in %.1f s, %d workers, %.1f MiB sent,"
                        + " slowest %d ms (seed %d), violations %d%n", done, firstSeed, firstSeed + done - 1, seconds,
                workers, bytes.sum() / 1048576.0, maxMillis.get(), maxMillisSeed.get(), violationCount.sum()));
        summary.append(String.format("  slowest review inside the server (its log's durationMs): %.1f ms%n", slowestServerMs));
        summary.append("  answers: ").append(new TreeMap<>(byAnswer)).append('\n');
        summary.append("  damages: ").append(new TreeMap<>(byDamage)).append('\n');
        System.out.print(summary);

        assertThat(violations).as("%s%s", summary, serve.tails()).isEmpty();
        assertThat(done).as("cases run within %s", bound).isEqualTo(cases);
        assertThat(serve.alive()).as("serve still running\n%s", serve.tails()).isTrue();
        assertThat(client.get("/healthz").status()).isEqualTo(200);
        assertThat(client.get("/readyz").status()).isEqualTo(200);
        WebhookClient.Answer after = client.post("/kvcache/mutate", normal);
        assertThat(after.status()).isEqualTo(200);
        assertThat(after.text()).as("the same review answered the same after the run").isEqualTo(before.text());
        List<Map<String, Object>> crashes = serve.log().stream().filter(l -> l.containsKey("exception")).toList();
        assertThat(crashes).as("log lines of a use case that failed internally").isEmpty();
    }

    private static String answerKind(WebhookClient.Answer a) {
        if (a.status() != 200) {
            return Integer.toString(a.status());
        }
        String t = a.text();
        if (t.contains("\"allowed\":false")) {
            int at = t.indexOf("\"refusal\":\"");
            return at < 0 ? "denied" : "refused " + t.substring(at + 11, t.indexOf('"', at + 11));
        }
        return t.contains("\"patch\":") ? "admitted with a patch" : "admitted unchanged";
    }
}
