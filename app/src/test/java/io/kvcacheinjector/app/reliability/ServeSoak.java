package io.kvcacheinjector.app.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.tls.Pem;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The soak: the real {@code serve} (the chart's heap and CPU, certificate from a mounted Secret, cluster view from a
 * mock API server) under a steady rate of reviews for {@code kvcache.soak.minutes} (5) after a 30 s warm-up, while
 * the certificate is rotated every 10 s and the cluster changes every second (Bindings created and deleted, objects in
 * use updated, CacheBlendEngines created and deleted so their ConfigMap informers start and stop, the settings Secret
 * created and deleted). Every answer must be byte-identical to the first answer to the same review, every probe ready;
 * memory, threads and descriptors of the first and the last minute are printed and compared.
 *
 * <p>Never in the normal build: {@code bin/mvn -o -Psoak -pl app test}.
 */
class ServeSoak {
    private static final Duration WARM_UP = Duration.ofSeconds(30);
    private static final Duration SAMPLE_EVERY = Duration.ofSeconds(5);
    private static final Duration ROTATE_EVERY = Duration.ofSeconds(10);
    private static final Pattern HEAP = Pattern.compile("(?m)^jvm_memory_used_bytes\\{area=\"heap\"} (\\S+)$");

    /** Kept after the run (the child's JSON log and stderr, the certificates): target/soak-<start time>. */
    private final Path dir = Path.of("target", "soak-" + java.time.LocalDateTime.now().withNano(0).toString()
            .replace(':', '-'));

    /** One sample of the child. */
    record Sample(long atMillis, long rssKib, long heapRssKib, long threads, long fds, long heapBytes) {
        /** RSS outside the Java heap's mapping. */
        long nonHeapRssKib() {
            return rssKib - heapRssKib;
        }
    }

    /** The heap the chart gives (-Xmx128m), in KiB: the size of the heap's one mapping under the serial collector. */
    private static final long HEAP_KIB = 128 * 1024;

    @Test
    void steadyLoadWithRotationsAndClusterChanges() throws Exception {
        Duration measured = Duration.ofMinutes(Long.getLong("kvcache.soak.minutes", 5));
        int rate = Integer.getInteger("kvcache.soak.rate", 100);
        int workers = 8;

        List<SelfSignedCertificate> certificates = new ArrayList<>();
        int rotations = (int) ((WARM_UP.plus(measured).toSeconds() / ROTATE_EVERY.toSeconds()) + 2);
        for (int i = 0; i <= rotations; i++) {
            certificates.add(SelfSignedCertificate.forLocalhost(Clock.systemUTC()));
        }
        SecretVolume secret = new SecretVolume(dir.resolve("tls"));
        secret.write(Pem.write(certificates.get(0).serving().chain()), Pem.write(certificates.get(0).serving().key()));

        try (MockApiServer api = new MockApiServer()) {
            api.load(Path.of("..", "docs", "examples", "cluster"));
            List<String> jvm = new ArrayList<>(GeneratedHostileReviewsTest.CHART_JVM);
            jvm.add("-XX:NativeMemoryTracking=summary");
            try (ServeProcess serve = ServeProcess.start(dir.resolve("serve"), jvm,
                    List.of("--tls-cert", secret.certificate().toString(), "--tls-key", secret.key().toString()),
                    Map.of("KUBECONFIG", api.kubeconfig(dir).toString()));
                 WebhookClient client = new WebhookClient(WebhookClient.trusting(
                         certificates.stream().map(SelfSignedCertificate::ca).toList()), serve.port())) {
                soak(serve, api, secret, certificates, client, measured, rate, workers);
            }
        } finally {
            deleteTree(dir.resolve("serve").resolve("classpath"));
        }
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        if (java.nio.file.Files.exists(root)) {
            try (var walk = java.nio.file.Files.walk(root)) {
                for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    java.nio.file.Files.delete(p);
                }
            }
        }
    }

    private void soak(ServeProcess serve, MockApiServer api, SecretVolume secret,
                      List<SelfSignedCertificate> certificates, WebhookClient client, Duration measured, int rate,
                      int workers) throws Exception {
        long readyBy = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (status(client, "/readyz") != 200) {
            assertThat(System.nanoTime()).as("ready\n%s", serve.tails()).isLessThan(readyBy);
            Thread.sleep(100);
        }
        Map<String, Mix> mix = mix();
        for (Mix m : mix.values()) {
            WebhookClient.Answer first = client.post(m.path(), m.body());
            assertThat(first.status()).isEqualTo(200);
            assertThat(ApiServerOutageTest.classify(first.text())).as(m.name()).isEqualTo(m.expected());
            m.answer().set(first.text());
        }

        long start = System.nanoTime();
        long measureFrom = start + WARM_UP.toNanos();
        long end = measureFrom + measured.toNanos();
        LongAdder sent = new LongAdder();
        LongAdder errors = new LongAdder();
        List<String> firstErrors = new CopyOnWriteArrayList<>();
        AtomicLong maxLatencyMicros = new AtomicLong();
        AtomicLong maxLagMillis = new AtomicLong();
        Function<String, Void> error = e -> {
            errors.increment();
            if (firstErrors.size() < 20) {
                firstErrors.add(String.format("%.1f s: %s", (System.nanoTime() - start) / 1e9, e));
            }
            return null;
        };

        ExecutorService pool = Executors.newFixedThreadPool(workers + 4);
        List<Future<?>> tasks = new ArrayList<>();
        List<Mix> order = List.copyOf(mix.values());
        long periodNanos = 1_000_000_000L * workers / rate;
        for (int w = 0; w < workers; w++) {
            int worker = w;
            tasks.add(pool.submit(() -> {
                long due = start + periodNanos * worker / workers;
                for (long i = worker; System.nanoTime() < end; i += workers) {
                    long now = System.nanoTime();
                    if (due > now) {
                        Thread.sleep((due - now) / 1_000_000, (int) ((due - now) % 1_000_000));
                    } else {
                        maxLagMillis.accumulateAndGet((now - due) / 1_000_000, Math::max);
                    }
                    due += periodNanos;
                    Mix m = order.get((int) (i % order.size()));
                    long t0 = System.nanoTime();
                    try {
                        WebhookClient.Answer a = client.post(m.path(), m.body());
                        maxLatencyMicros.accumulateAndGet((System.nanoTime() - t0) / 1000, Math::max);
                        if (a.status() != 200 || !a.text().equals(m.answer().get())) {
                            error.apply(m.name() + ": " + a.status() + " " + clip(a.text()));
                        }
                    } catch (Exception e) {
                        error.apply(m.name() + ": no answer: " + e);
                    }
                    sent.increment();
                }
                return null;
            }));
        }

        // certificate rotations: every 10 s the next certificate; new connections must get it
        AtomicInteger rotated = new AtomicInteger();
        tasks.add(pool.submit(() -> {
            for (int i = 1; i < certificates.size() && System.nanoTime() < end - ROTATE_EVERY.toNanos(); i++) {
                Thread.sleep(ROTATE_EVERY.toMillis());
                SelfSignedCertificate next = certificates.get(i);
                secret.write(Pem.write(next.serving().chain()), Pem.write(next.serving().key()));
                long by = System.nanoTime() + ROTATE_EVERY.toNanos();
                X509Certificate served = null;
                while (System.nanoTime() < by && !next.serving().leaf().equals(served)) {
                    Thread.sleep(100);
                    try {
                        served = client.servedCertificate();
                    } catch (Exception e) {
                        error.apply("rotation " + i + ": handshake failed: " + e);
                    }
                }
                if (!next.serving().leaf().equals(served)) {
                    error.apply("rotation " + i + " not served within " + ROTATE_EVERY);
                }
                rotated.incrementAndGet();
            }
            return null;
        }));

        // cluster changes, every second
        AtomicInteger changes = new AtomicInteger();
        tasks.add(pool.submit(() -> {
            for (int k = 0; System.nanoTime() < end; k++) {
                Thread.sleep(1000);
                try {
                    change(api, k);
                    changes.incrementAndGet();
                } catch (RuntimeException e) {
                    error.apply("cluster change " + k + " failed: " + e);
                }
            }
            return null;
        }));

        // readiness, every second
        tasks.add(pool.submit(() -> {
            while (System.nanoTime() < end) {
                Thread.sleep(1000);
                int s = status(client, "/readyz");
                if (s != 200) {
                    error.apply("/readyz answered " + s);
                }
            }
            return null;
        }));

        // samples every 5 s; a full collection before the heap is read at the end of the first and the last minute
        List<Sample> samples = new CopyOnWriteArrayList<>();
        Map<String, Long> heapAfterGc = new ConcurrentHashMap<>();
        Map<String, Map<String, Long>> nativeMemory = new ConcurrentHashMap<>();
        long firstMinuteEnd = measureFrom + Duration.ofMinutes(1).toNanos();
        boolean firstDone = false;
        while (System.nanoTime() < end) {
            Thread.sleep(SAMPLE_EVERY.toMillis());
            long now = System.nanoTime();
            if (now >= measureFrom) {
                samples.add(sample(serve, client, (now - measureFrom) / 1_000_000));
            }
            if (!firstDone && now >= firstMinuteEnd) {
                heapAfterGc.put("first", heapAfterCollection(serve, client));
                nativeMemory.put("first", serve.nativeMemoryKib());
                firstDone = true;
            }
            if (end - now < SAMPLE_EVERY.toNanos() * 3 / 2 && !heapAfterGc.containsKey("last")) {
                heapAfterGc.put("last", heapAfterCollection(serve, client));
                nativeMemory.put("last", serve.nativeMemoryKib());
            }
        }
        for (Future<?> t : tasks) {
            t.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();

        long measuredMillis = measured.toMillis();
        List<Sample> first = samples.stream().filter(s -> s.atMillis() <= 60_000).toList();
        List<Sample> last = samples.stream().filter(s -> s.atMillis() >= measuredMillis - 60_000).toList();
        int reloads = serve.events("tls-reloaded").size();
        int reloadFailures = serve.events("tls-reload-failed").size();
        String report = String.format("""
                        soak: %d reviews in %.0f s (%.0f s warm-up + %d s measured) at %d/s by %d clients; errors %d;
                          slowest answer %.1f ms, largest schedule lag %d ms; certificate rotations %d (tls-reloaded %d,
                          tls-reload-failed %d); cluster changes %d
                          first minute: RSS %s MiB (outside the heap's mapping %s), threads %s, open fds %s, heap %s MiB, heap after full GC %.1f MiB
                          last minute:  RSS %s MiB (outside the heap's mapping %s), threads %s, open fds %s, heap %s MiB, heap after full GC %.1f MiB
                        """, sent.sum(), (System.nanoTime() - start) / 1e9, WARM_UP.toMillis() / 1e3, measured.toSeconds(),
                rate, workers, errors.sum(), maxLatencyMicros.get() / 1e3, maxLagMillis.get(), rotated.get(), reloads,
                reloadFailures, changes.get(),
                range(first, s -> s.rssKib() / 1024.0), range(first, s -> s.nonHeapRssKib() / 1024.0),
                range(first, s -> (double) s.threads()),
                range(first, s -> (double) s.fds()), range(first, s -> s.heapBytes() / 1048576.0),
                heapAfterGc.getOrDefault("first", -1L) / 1048576.0,
                range(last, s -> s.rssKib() / 1024.0), range(last, s -> s.nonHeapRssKib() / 1024.0),
                range(last, s -> (double) s.threads()),
                range(last, s -> (double) s.fds()), range(last, s -> s.heapBytes() / 1048576.0),
                heapAfterGc.getOrDefault("last", -1L) / 1048576.0);
        Map<String, Long> nmtFirst = nativeMemory.getOrDefault("first", Map.of());
        Map<String, Long> nmtLast = nativeMemory.getOrDefault("last", Map.of());
        long nonHeapFirst = nonHeapData(nmtFirst);
        long nonHeapLast = nonHeapData(nmtLast);
        StringBuilder nmt = new StringBuilder(String.format("  native memory committed outside the heap (NMT, without"
                + " JIT code, compiler scratch and the tracking itself): first minute %.1f MiB, last minute %.1f MiB;"
                + " by category, first -> last (MiB):", nonHeapFirst / 1024.0, nonHeapLast / 1024.0));
        nmtLast.forEach((category, kib) -> {
            if (!category.equals("Total") && !category.equals("Java Heap")) {
                nmt.append(String.format(" %s %.1f -> %.1f;", category, nmtFirst.getOrDefault(category, 0L) / 1024.0,
                        kib / 1024.0));
            }
        });
        report += nmt + "\n";
        System.out.print(report);
        samples.forEach(s -> System.out.printf("  t=%5.0f s  rss %6.1f MiB (heap mapping %6.1f, rest %6.1f)  threads %3d"
                        + "  fds %4d  heap %6.1f MiB%n", s.atMillis() / 1e3, s.rssKib() / 1024.0, s.heapRssKib() / 1024.0,
                s.nonHeapRssKib() / 1024.0, s.threads(), s.fds(), s.heapBytes() / 1048576.0));

        assertThat(firstErrors).as("%s", report).isEmpty();
        assertThat(errors.sum()).isZero();
        assertThat(serve.alive()).isTrue();
        assertThat(sent.sum()).as("the steady rate was kept").isGreaterThanOrEqualTo(
                (long) (rate * (WARM_UP.plus(measured).toSeconds()) * 0.95));
        assertThat(reloads).as("every rotation was applied").isEqualTo(rotated.get());
        assertThat(reloadFailures).isZero();
        long firstThreads = max(first, Sample::threads);
        long lastThreads = max(last, Sample::threads);
        assertThat(lastThreads).as("threads, last minute vs first\n%s", report).isLessThanOrEqualTo(firstThreads + 2);
        assertThat(max(last, Sample::fds)).as("descriptors, last minute vs first").isLessThanOrEqualTo(
                max(first, Sample::fds) + 8);
        long heapFirst = heapAfterGc.get("first");
        long heapLast = heapAfterGc.get("last");
        assertThat(heapLast).as("heap after a full GC, last minute vs first\n%s", report)
                .isLessThanOrEqualTo(heapFirst + heapFirst / 10 + 4L * 1024 * 1024);
        assertThat(nonHeapLast).as("native memory outside the heap, last minute vs first\n%s", report)
                .isPositive().isLessThanOrEqualTo(nonHeapFirst + 8 * 1024);
        // RSS also counts heap pages touched once and kept (the old generation's high-water mark between full
        // collections, at most -Xmx): the part outside the heap's mapping is what would grow with a native leak
        assertThat(max(last, Sample::nonHeapRssKib)).as("RSS outside the heap's mapping, last minute vs first\n%s",
                report).isLessThanOrEqualTo(max(first, Sample::nonHeapRssKib) + 8 * 1024);
        assertThat(max(last, Sample::heapRssKib)).as("the heap's resident pages").isLessThanOrEqualTo(HEAP_KIB);
        assertThat(max(last, Sample::rssKib)).as("RSS within the chart's 384 Mi limit\n%s", report)
                .isLessThan(384L * 1024);
    }

    /**
     * NMT's committed KiB outside the Java heap that hold the program's data (classes, metaspace, symbols, threads,
     * GC structures, buffers, ...). Left out: {@code Code} (JIT-compiled code, growing as methods get hot and bounded
     * by the code cache), {@code Arena Chunk} (the compilers' scratch memory, large while a method compiles and
     * released after) and the tracking's own memory.
     */
    private static long nonHeapData(Map<String, Long> nmt) {
        return nmt.getOrDefault("Total", 0L) - nmt.getOrDefault("Java Heap", 0L) - nmt.getOrDefault("Code", 0L)
                - nmt.getOrDefault("Arena Chunk", 0L) - nmt.getOrDefault("Native Memory Tracking", 0L);
    }

    /** One change of the cluster: never one that changes an answer of the mix. */
    private static void change(MockApiServer api, int k) {
        switch (k % 5) {
            case 0 -> {
                api.create(binding("churn-" + k, "team-b", "shared"));
                api.delete(ClusterKind.KV_CACHE_POOL_BINDING, "team-b", "churn-" + (k - 25));
            }
            case 1 -> {
                // the objects in use get a new resourceVersion: the view maps them again, the answers stay
                Map<String, Object> chat = binding("chat", "team-a", "shared");
                meta(chat).put("annotations", Map.of("soak/generation", Integer.toString(k)));
                api.create(chat);
            }
            case 2 -> {
                if ((k / 5) % 2 == 0) {
                    api.create(engine("churn-engine", "team-b"));
                    api.create(configMap("churn-engine-connection", "team-b"));
                } else {
                    api.delete(ClusterKind.CACHE_BLEND_ENGINE, "team-b", "churn-engine");
                    api.delete(ClusterKind.CONFIG_MAP, "team-b", "churn-engine-connection");
                }
            }
            case 3 -> {
                if ((k / 5) % 2 == 0) {
                    api.create(new LinkedHashMap<>(Map.of("apiVersion", "v1", "kind", "Secret",
                            "metadata", new LinkedHashMap<>(Map.of("name", "gpustack-settings",
                                    "namespace", "gpustack-system")),
                            "data", Map.of("model-deployment-kv-cache-dtype-owned",
                                    Base64.getEncoder().encodeToString("true".getBytes())))));
                } else {
                    api.delete(ClusterKind.SECRET, "gpustack-system", "gpustack-settings");
                }
            }
            default -> {
                Map<String, Object> pool = new LinkedHashMap<>(Map.of("apiVersion", "worker.gpustack.ai/v1alpha1",
                        "kind", "KVCachePool", "metadata", new LinkedHashMap<>(Map.of("name", "shared",
                                "annotations", Map.of("soak/generation", Integer.toString(k)))),
                        "spec", Map.of("backends", List.of("mc")),
                        "status", Map.of("clientEndpoint", "mc-leader.kv.svc:50051", "conditions", List.of(Map.of(
                                "type", "QuotaLedgerAvailable", "status", "True", "reason", "Available",
                                "message", "")))));
                api.create(pool);
            }
        }
    }

    /** The reviews sent in turn, each with its fixed uid, so that every answer to it has the same bytes. */
    record Mix(String name, String path, byte[] body, String expected, java.util.concurrent.atomic.AtomicReference<String> answer) {
    }

    private static Map<String, Mix> mix() {
        Map<String, Mix> m = new LinkedHashMap<>();
        add(m, "vllm", "/kvcache/mutate", ExampleReviews.create("soak-vllm", ExampleReviews.vllmPod()),
                "admitted with a patch");
        add(m, "sglang", "/kvcache/mutate", ExampleReviews.create("soak-sglang", ExampleReviews.pod("sglang.yaml")),
                "admitted with a patch");
        add(m, "vllm-ascend", "/kvcache/mutate", ExampleReviews.create("soak-ascend",
                ExampleReviews.pod("vllm-ascend.yaml")), "admitted with a patch");
        add(m, "refused", "/kvcache/mutate", ExampleReviews.create("soak-refused",
                ExampleReviews.pod("refused-shell.yaml")), "refused launch-shell-c");
        add(m, "cacheblend", "/cacheblend/mutate", ExampleReviews.create("soak-blend",
                ExampleReviews.pod("cacheblend.yaml")), "admitted with a patch");
        add(m, "freeze", "/kvcache/validate", ExampleReviews.update("soak-freeze", ExampleReviews.vllmPod()),
                "admitted unchanged");
        Map<String, Object> plain = ExampleReviews.vllmPod();
        meta(plain).put("labels", new LinkedHashMap<>(Map.of("app", "chat")));
        add(m, "not opted in", "/kvcache/mutate", ExampleReviews.create("soak-plain", plain), "admitted unchanged");
        return m;
    }

    private static void add(Map<String, Mix> m, String name, String path, byte[] body, String expected) {
        m.put(name, new Mix(name, path, body, expected, new java.util.concurrent.atomic.AtomicReference<>()));
    }

    private static String clip(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "...";
    }

    private static Sample sample(ServeProcess serve, WebhookClient client, long atMillis) {
        return new Sample(atMillis, serve.rssKib(), serve.rssOfMappingsSizedKib(HEAP_KIB), serve.threads(),
                serve.openFds(), heap(client));
    }

    private static long heapAfterCollection(ServeProcess serve, WebhookClient client) throws InterruptedException {
        return serve.collectGarbage() ? heap(client) : -1;
    }

    private static long heap(WebhookClient client) {
        try {
            Matcher m = HEAP.matcher(client.get("/metrics").text());
            return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
        } catch (Exception e) {
            return -1;
        }
    }

    private static int status(WebhookClient client, String path) {
        try {
            return client.get(path).status();
        } catch (Exception e) {
            return -1;
        }
    }

    private static String range(List<Sample> samples, java.util.function.ToDoubleFunction<Sample> value) {
        var stats = samples.stream().mapToDouble(value).summaryStatistics();
        return String.format("%.1f..%.1f (mean %.1f)", stats.getMin(), stats.getMax(), stats.getAverage());
    }

    private static long max(List<Sample> samples, java.util.function.ToLongFunction<Sample> value) {
        return samples.stream().mapToLong(value).max().orElseThrow();
    }

    private static Map<String, Object> binding(String name, String namespace, String pool) {
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("apiVersion", "worker.gpustack.ai/v1alpha1");
        b.put("kind", "KVCachePoolBinding");
        b.put("metadata", new LinkedHashMap<>(Map.of("name", name, "namespace", namespace)));
        b.put("spec", new LinkedHashMap<>(Map.of("poolRef", Map.of("name", pool),
                "domain", Map.of("name", namespace + "-" + name, "dtype", "bfloat16"))));
        return b;
    }

    private static Map<String, Object> engine(String name, String namespace) {
        return new LinkedHashMap<>(Map.of("apiVersion", "lmcache.lmcache.ai/v1alpha1", "kind", "CacheBlendEngine",
                "metadata", new LinkedHashMap<>(Map.of("name", name, "namespace", namespace)),
                "spec", Map.of("injection", Map.of("payloadImage", Map.of("repository", "tensormesh/cacheblend-plugin",
                        "tag", "v0.5.3")))));
    }

    private static Map<String, Object> configMap(String name, String namespace) {
        return new LinkedHashMap<>(Map.of("apiVersion", "v1", "kind", "ConfigMap",
                "metadata", new LinkedHashMap<>(Map.of("name", name, "namespace", namespace)),
                "data", Map.of("kv-transfer-config.json", "{\"kv_connector\":\"CBKVConnector\"}")));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> meta(Map<String, Object> object) {
        return (Map<String, Object>) object.get("metadata");
    }
}
