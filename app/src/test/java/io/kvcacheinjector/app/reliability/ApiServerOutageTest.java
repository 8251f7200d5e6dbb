package io.kvcacheinjector.app.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.json.Json;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code serve}, watching a mock API server through a kubeconfig, while reviews keep coming: the API server
 * disappears (every watch drops, every read fails) and comes back. The server keeps answering every review; readiness
 * turns 503 and back; while the view is not synced the kvcache mutate path refuses {@code cluster-not-ready} (never an
 * admission on stale or missing data) and CacheBlend skips with {@code lookup-failed}; once the API is back, the same
 * review is admitted with the same bytes as before, and a Binding created after the outage is used.
 */
class ApiServerOutageTest {
    private static final Duration DETECT = Duration.ofSeconds(60);
    private static final Duration RECOVER = Duration.ofSeconds(120);

    @TempDir
    Path dir;
    private MockApiServer api;
    private ServeProcess serve;
    private WebhookClient client;

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (serve != null) {
            assertThat(serve.stop()).as("exit status after SIGTERM\n%s", serve.tails()).isZero();
        }
        if (api != null) {
            api.close();
        }
    }

    private void startServe() throws Exception {
        serve = ServeProcess.start(dir, GeneratedHostileReviewsTest.CHART_JVM,
                List.of("--tls-ca-out", dir.resolve("ca.pem").toString()),
                Map.of("KUBECONFIG", api.kubeconfig(dir).toString()));
        client = new WebhookClient(WebhookClient.trusting(dir.resolve("ca.pem")), serve.port());
    }

    /** One answer seen by the background reviewer. */
    record Seen(long atNanos, boolean apiUp, String kind, String text) {
    }

    @Test
    void theApiServerGoesAwayWhileReviewsKeepComingAndComesBack() throws Exception {
        api = new MockApiServer();
        api.load(Path.of("..", "docs", "examples", "cluster"));
        startServe();
        await("ready", RECOVER, () -> status("/readyz") == 200);

        byte[] vllm = ExampleReviews.create("uid-vllm", ExampleReviews.vllmPod());
        byte[] blend = ExampleReviews.create("uid-blend", ExampleReviews.pod("cacheblend.yaml"));
        String admitted = client.post("/kvcache/mutate", vllm).text();
        assertThat(admitted).contains("\"allowed\":true").contains("\"patchType\":\"JSONPatch\"");
        String blendAdmitted = client.post("/cacheblend/mutate", blend).text();
        assertThat(blendAdmitted).contains("\"allowed\":true").contains("\"patchType\":\"JSONPatch\"")
                .doesNotContain("skip-reason");

        List<Seen> seen = new CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        ExecutorService reviewers = Executors.newFixedThreadPool(2);
        List<Future<?>> loops = new ArrayList<>();
        for (byte[] body : List.of(vllm, blend)) {
            String path = body == vllm ? "/kvcache/mutate" : "/cacheblend/mutate";
            loops.add(reviewers.submit(() -> {
                long end = System.nanoTime() + Duration.ofMinutes(5).toNanos();
                while (running.get() && System.nanoTime() < end) {
                    boolean up = api.up();
                    String kind;
                    String text = "";
                    try {
                        WebhookClient.Answer a = client.post(path, body);
                        text = a.text();
                        kind = a.status() != 200 ? "http " + a.status()
                                : text.equals(admitted) || text.equals(blendAdmitted) ? "admitted as before"
                                : classify(text);
                    } catch (Exception e) {
                        kind = "no answer: " + e;
                    }
                    seen.add(new Seen(System.nanoTime(), up, path + " " + kind, text));
                    Thread.sleep(20);
                }
                return null;
            }));
        }

        Thread.sleep(500);
        long stoppedAt = System.nanoTime();
        api.stop();
        await("readiness to turn 503", DETECT, () -> status("/readyz") == 503);
        long notReadyAt = System.nanoTime();
        String readyz = client.get("/readyz").text();
        await("a cluster-not-ready refusal", DETECT, () -> seen.stream().anyMatch(s -> s.kind().contains("cluster-not-ready")));
        Thread.sleep(3_000); // the outage goes on while reviews keep coming
        assertThat(status("/readyz")).as("still not ready while the API is down").isEqualTo(503);
        assertThat(status("/healthz")).as("alive while the API is down").isEqualTo(200);

        api.restart();
        long restartedAt = System.nanoTime();
        await("readiness back", RECOVER, () -> status("/readyz") == 200);
        await("the review admitted as before", RECOVER, () -> seen.stream()
                .anyMatch(s -> s.atNanos() > restartedAt && s.kind().equals("/kvcache/mutate admitted as before")));
        long readyAgainAt = System.nanoTime();
        running.set(false);
        for (Future<?> f : loops) {
            f.get(30, TimeUnit.SECONDS);
        }
        reviewers.shutdown();

        // a Binding created after the outage is seen (the watch resumed)
        Map<String, Object> late = new LinkedHashMap<>(Map.of("apiVersion", "worker.gpustack.ai/v1alpha1",
                "kind", "KVCachePoolBinding", "metadata", Map.of("name", "late", "namespace", "team-a"),
                "spec", Map.of("poolRef", Map.of("name", "shared"), "domain", Map.of("name", "team-a-late",
                        "dtype", "bfloat16"))));
        api.create(late);
        Map<String, Object> pod = ExampleReviews.vllmPod();
        annotations(pod).put("kvcache.gpustack.ai/binding", "late");
        String lateAnswer = client.post("/kvcache/mutate", ExampleReviews.create("uid-late", pod)).text();
        assertThat(lateAnswer).contains("\"allowed\":true").contains("\"patchType\":\"JSONPatch\"");

        // what the reviewers saw
        Map<String, Long> counts = new LinkedHashMap<>();
        seen.forEach(s -> counts.merge(s.kind(), 1L, Long::sum));
        String summary = String.format("API down at 0 s; readiness 503 after %.1f s; API back after %.1f s; "
                        + "ready and admitting again %.1f s after it came back; answers: %s%nreadyz while down: %s",
                (notReadyAt - stoppedAt) / 1e9, (restartedAt - stoppedAt) / 1e9, (readyAgainAt - restartedAt) / 1e9,
                counts, readyz.strip());
        System.out.println(summary);

        assertThat(seen).as(summary).allSatisfy(s -> assertThat(s.kind())
                .matches("/kvcache/mutate (admitted as before|refused cluster-not-ready)"
                        + "|/cacheblend/mutate (admitted as before|skipped lookup-failed)"));
        assertThat(seen).as("no admission on stale data once the view reported itself not ready\n%s", summary)
                .filteredOn(s -> s.atNanos() > notReadyAt && s.atNanos() < restartedAt)
                .isNotEmpty()
                .allSatisfy(s -> assertThat(s.kind()).doesNotContain("admitted"));
        assertThat(readyz).contains("not ready").contains("the cluster view has not synced");
        String refusal = seen.stream().filter(s -> s.kind().endsWith("cluster-not-ready")).findFirst().orElseThrow().text();
        assertThat(refusal).contains("cluster-not-ready: the webhook could not read KVCachePoolBinding")
                .contains("team-a/chat").contains("retry");
        String skip = seen.stream().filter(s -> s.kind().endsWith("lookup-failed")).findFirst().orElseThrow().text();
        // the engine from the cache is refused once the view is not synced; in the first seconds, while the view
        // still counts the dropped watch as resuming, the connection ConfigMap's live read times out instead
        assertThat(skip).contains("lookup-failed: CacheBlend not injected").contains("team-a/cacheblend");
    }

    @Test
    void startedWhileTheApiServerIsDownItRefusesNotReadyAndBecomesReadyWhenTheApiComesUp() throws Exception {
        api = new MockApiServer();
        api.load(Path.of("..", "docs", "examples", "cluster"));
        api.stop();
        startServe();

        assertThat(status("/healthz")).isEqualTo(200);
        assertThat(status("/readyz")).isEqualTo(503);
        assertThat(client.get("/readyz").text()).contains("has not finished its first list");
        byte[] vllm = ExampleReviews.create("uid-vllm", ExampleReviews.vllmPod());
        for (int i = 0; i < 20; i++) {
            WebhookClient.Answer a = client.post("/kvcache/mutate", vllm);
            assertThat(a.status()).isEqualTo(200);
            assertThat(classify(a.text())).isEqualTo("refused cluster-not-ready");
            Thread.sleep(50);
        }

        api.restart();
        await("readiness", RECOVER, () -> status("/readyz") == 200);
        WebhookClient.Answer a = client.post("/kvcache/mutate", vllm);
        assertThat(classify(a.text())).isEqualTo("admitted with a patch");
    }

    private int status(String path) {
        try {
            return client.get(path).status();
        } catch (Exception e) {
            return -1;
        }
    }

    /** "admitted with a patch", "admitted unchanged", "refused <codes>", "skipped <code>" or the raw text. */
    static String classify(String text) {
        Map<?, ?> response = Json.parse(text).filter(Map.class::isInstance).map(m -> ((Map<?, ?>) m).get("response"))
                .filter(Map.class::isInstance).map(Map.class::cast).orElse(Map.of());
        Map<?, ?> audit = response.get("auditAnnotations") instanceof Map<?, ?> m ? m : Map.of();
        if (Boolean.FALSE.equals(response.get("allowed"))) {
            return "refused " + audit.get("refusal");
        }
        if (Boolean.TRUE.equals(response.get("allowed"))) {
            if (audit.get("skip-reason") != null) {
                return "skipped " + audit.get("skip-reason");
            }
            return response.containsKey("patch") ? "admitted with a patch" : "admitted unchanged";
        }
        return "unexpected: " + HostileOracle.clip(text);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> annotations(Map<String, Object> pod) {
        return (Map<String, Object>) ((Map<String, Object>) pod.get("metadata")).get("annotations");
    }

    private static void await(String what, Duration deadline, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("gave up after " + deadline + " waiting for " + what);
            }
            Thread.sleep(100);
        }
    }
}
