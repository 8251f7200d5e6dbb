package io.kvcacheinjector.bench;

import io.kvcacheinjector.app.engines.EngineOptions;
import io.kvcacheinjector.adapters.http.tls.Pem;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import io.kvcacheinjector.standin.StandInApiServer;
import io.kvcacheinjector.domain.json.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;

/**
 * {@code bench --serve-process}: the memory of {@code serve} as the chart runs it. Starts {@code serve} over the
 * example cluster in a separate JVM with the given JVM options (by default the chart's, {@link #CHART_JVM_OPTIONS},
 * with the AOT cache beside the jar when there is one newer than the jar), with certificate files as the chart
 * mounts them, its JSON log read from a pipe as a container runtime reads it; waits for its {@code /readyz} 200,
 * reads its resident set idle, then drives it with the bench's closed-loop client (the same reviews and
 * connections as {@code bench}) for the warm-up and the measured rounds, reading {@code VmRSS}, {@code RssAnon}
 * and {@code RssFile} from {@code /proc/<pid>/status} every {@link BenchOptions#sample()}. It reports the median of
 * the second half of those samples and the highest, the process's CPU time per review, and its heap as
 * {@code jcmd GC.heap_info} reads it at the end. It prints numbers; it asserts only that every review was answered
 * as the real webhook must answer it (docs/explanation/performance-log.md, "Footprint and start-up (issue 17)").
 *
 * <p>A {@code serve} that does not start is loud: {@link IllegalStateException} naming its exit status and the end
 * of its stderr, or the time it was given.
 */
public final class ServeUnderLoad {
    /**
     * The chart's JVM options (deploy/helm/kvcache-injector/templates/deployment.yaml with the default values), with
     * {@code -XX:MaxRAM} at the container's memory limit as the container imposes it, and without the AOT cache
     * (added when one is found); {@code ServeUnderLoadTest} checks them against the rendered chart.
     */
    public static final List<String> CHART_JVM_OPTIONS = List.of("-XX:MaxRAM=320m",
            "--sun-misc-unsafe-memory-access=allow", "-XX:MaxRAMPercentage=41", "-XX:MinRAMPercentage=41",
            "-XX:+UseSerialGC", "-Xmn16m", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30",
            "-XX:-ShrinkHeapInSteps", "-XX:TrimNativeHeapInterval=1000", "-Xlog:disable", "-Xlog:all=warning:stderr",
            "-Xlog:aot*=error:stderr", "-XX:+ExitOnOutOfMemoryError", "-XX:-UsePerfData");
    /**
     * The environment the chart gives the container besides the Pod's own ({@code templates/deployment.yaml}),
     * given to the child unless bench's own environment sets the variable.
     */
    public static final Map<String, String> CHART_ENVIRONMENT = Map.of("MALLOC_ARENA_MAX", "2");
    /** The AOT cache's name beside the jar, as bin/aot-cache makes it. */
    public static final String AOT_CACHE = "kvcache-injector.aot";
    static final Duration START_DEADLINE = Duration.ofSeconds(90);
    private static final Duration IDLE = Duration.ofSeconds(2);
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(20);
    private static final int STDERR_TAIL_LINES = 15;

    /** One reading of the resident set, in bytes ({@code -1}: not known). */
    record Sample(long nanos, long rss, long rssAnon, long rssFile) {
    }

    private ServeUnderLoad() {
    }

    /**
     * How to start the main class after {@code java <options>}: {@code -jar <jar>} when serve's classes come from a
     * jar (the shipped kvcache-injector.jar), else {@code -cp <class path> io.kvcacheinjector.app.Main}.
     */
    public static List<String> launch() {
        Optional<Path> jar = runningJar();
        if (jar.isPresent()) {
            return List.of("-jar", jar.get().toString());
        }
        return List.of("-cp", System.getProperty("java.class.path"), "io.kvcacheinjector.app.Main");
    }

    /**
     * The jar {@code serve} comes from when it is a runnable one (the shipped kvcache-injector.jar, before bench's
     * own on the class path; not app's unshaded jar of a Maven build, which names no main class).
     */
    public static Optional<Path> runningJar() {
        try {
            Path p = Path.of(io.kvcacheinjector.app.serve.ServeCommand.class.getProtectionDomain().getCodeSource()
                    .getLocation().toURI());
            if (!Files.isRegularFile(p) || !p.toString().endsWith(".jar")) {
                return Optional.empty();
            }
            try (java.util.jar.JarFile jar = new java.util.jar.JarFile(p.toFile())) {
                var manifest = jar.getManifest();
                return manifest != null && manifest.getMainAttributes().getValue("Main-Class") != null
                        ? Optional.of(p) : Optional.empty();
            }
        } catch (java.net.URISyntaxException | java.io.IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The chart's options, and {@code -XX:AOTCache} when {@value #AOT_CACHE} lies beside {@code jar} and is newer
     * than it (a cache made for another jar is refused by the JVM, so an older one is not taken).
     */
    public static List<String> defaultJvmOptions(Optional<Path> jar) {
        List<String> options = new ArrayList<>(CHART_JVM_OPTIONS);
        jar.map(j -> j.resolveSibling(AOT_CACHE)).filter(cache -> newer(cache, jar.get()))
                .ifPresent(cache -> options.add("-XX:AOTCache=" + cache));
        return List.copyOf(options);
    }

    private static boolean newer(Path cache, Path jar) {
        try {
            return Files.isRegularFile(cache)
                    && Files.getLastModifiedTime(cache).compareTo(Files.getLastModifiedTime(jar)) > 0;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Runs the measurement.
     *
     * @param cluster    the cluster folder {@code serve --cluster} reads
     * @param java       the {@code java} executable
     * @param jvmOptions the options of {@code serve}'s JVM
     * @param launch     what follows them: {@link #launch()}
     * @param progress   one line per phase (stderr)
     * @throws IllegalStateException when {@code serve} exits or does not listen or become ready in time
     */
    public static ServeLoadReport run(BenchOptions options, Path cluster, String java, List<String> jvmOptions,
                                      List<String> launch, PrintStream progress) throws InterruptedException {
        Path work;
        try {
            work = Files.createTempDirectory("kvcache-bench-serve");
        } catch (IOException e) {
            throw new IllegalStateException("cannot make a temporary directory for the serve process: "
                    + e.getMessage(), e);
        }
        try {
            return run(options, cluster, java, jvmOptions, launch, progress, work);
        } finally {
            ExampleCluster.delete(work);
        }
    }

    private static ServeLoadReport run(BenchOptions options, Path cluster, String java, List<String> jvmOptions,
                                       List<String> launch, PrintStream progress, Path work)
            throws InterruptedException {
        SelfSignedCertificate certificate = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
        Path cert = work.resolve("tls.crt");
        Path key = work.resolve("tls.key");
        Path stderr = work.resolve("serve.stderr.log");
        try {
            Files.writeString(cert, Pem.write(certificate.serving().chain()), StandardCharsets.US_ASCII);
            Files.writeString(key, Pem.write(certificate.serving().key()), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write the serve process's certificate files: " + e.getMessage(), e);
        }
        // with --informers, serve reads the example cluster from a stand-in API server (null: from files)
        try (StandInApiServer api = options.informers() ? standIn(certificate, work, progress) : null) {
            List<String> command = new ArrayList<>();
            command.add(java);
            command.addAll(jvmOptions);
            if (api != null) { // fabric8 reads the system property before $KUBECONFIG; the stand-in is local
                command.add("-Dkubeconfig=" + work.resolve("kubeconfig"));
                command.add("-Dno.proxy=127.0.0.1,localhost");
            }
            command.addAll(launch);
            command.add("serve");
            if (api != null) { // as the chart runs it
                command.addAll(List.of("--namespace", "kvcache-injector", "--settings-namespace", "gpustack-system",
                        "--reconcile-cacheblend"));
            } else {
                command.addAll(List.of("--cluster", cluster.toString()));
            }
            // no shutdown delay: no Service routes to this process, and bench waits for it to stop
            // and a health port, as the chart gives it one for the kubelet's probes
            command.addAll(List.of("--host", "127.0.0.1", "--port", "0", "--health-port", "0", "--shutdown-delay", "0",
                    "--tls-cert", cert.toString(), "--tls-key", key.toString()));
            options.enginesDir().ifPresent(d -> command.addAll(List.of(EngineOptions.FLAG, d)));
            Map<String, String> environment = new java.util.TreeMap<>(CHART_ENVIRONMENT);
            environment.keySet().removeIf(name -> System.getenv(name) != null);
            if (api != null) {
                environment.put("POD_NAME", "bench-serve"); // the controller's identity in its Lease
            }
            progress.printf("bench: starting serve (environment %s): %s%n", environment, String.join(" ", command));
            long launched = System.nanoTime();
            Process process;
            try {
                ProcessBuilder builder = new ProcessBuilder(command).redirectError(stderr.toFile());
                builder.environment().remove("KUBECONFIG");
                builder.environment().remove("JAVA_TOOL_OPTIONS");
                builder.environment().putAll(environment);
                process = builder.start();
            } catch (IOException e) {
                throw new IllegalStateException("cannot start the serve process (" + java + "): " + e.getMessage()
                        + "; give bench a java it can run", e);
            }
            Thread stopper = new Thread(process::destroyForcibly);
            Runtime.getRuntime().addShutdownHook(stopper);
            try {
                CompletableFuture<Integer> port = new CompletableFuture<>();
                Thread drain = Thread.ofPlatform().daemon().name("bench-serve-stdout")
                        .start(() -> drain(process, port));
                int serverPort = awaitPort(process, port, stderr);
                SSLContext context = BenchServers.trusting(certificate);
                long readyMillis = awaitReady(process, context, serverPort, stderr, launched);
                progress.printf("bench: serve (pid %d) answered /readyz %d ms after it was launched%n", process.pid(),
                        readyMillis);
                Thread.sleep(IDLE.toMillis());
                Sample idle = sample(process.pid(), System.nanoTime());
                ServeLoadReport report = drive(options, process, context, serverPort, idle, readyMillis, jvmOptions,
                        progress);
                drain.interrupt();
                if (api != null) {
                    progress.printf("bench: the stand-in API server's requests: %s%n", api.counts());
                }
                return report;
            } finally {
                stop(process);
                try {
                    Runtime.getRuntime().removeShutdownHook(stopper);
                } catch (IllegalStateException e) {
                    // shutting down already: the hook runs anyway
                }
            }
        }
    }

    /** The stand-in API server for {@code --informers}, and a kubeconfig for it in {@code work}. */
    private static StandInApiServer standIn(SelfSignedCertificate certificate, Path work, PrintStream progress) {
        StandInApiServer api = null;
        try {
            api = StandInApiServer.start(certificate.serving(), ExampleCluster.objects());
            Files.writeString(work.resolve("kubeconfig"), api.kubeconfig(certificate.caPem()), StandardCharsets.UTF_8);
        } catch (IOException e) {
            if (api != null) {
                api.close();
            }
            throw new IllegalStateException("cannot start the stand-in API server for --informers: "
                    + e.getMessage(), e);
        }
        progress.printf("bench: serve reads the example cluster from a stand-in API server at %s through its"
                + " informers, and runs the CacheBlendEngine controller%n", api.url());
        return api;
    }

    private static ServeLoadReport drive(BenchOptions options, Process process, SSLContext context, int port,
                                         Sample idle, long readyMillis, List<String> jvmOptions, PrintStream progress)
            throws InterruptedException {
        List<BenchReview> mix = BenchReview.httpMix();
        Map<Side, Integer> ports = new EnumMap<>(Side.class);
        for (Side side : Side.values()) {
            ports.put(side, port); // only the real side is driven
        }
        List<Sample> samples = new CopyOnWriteArrayList<>();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-rss-sampler");
            t.setDaemon(true);
            return t;
        });
        List<String> problems = new ArrayList<>();
        LatencyHistogram latency = new LatencyHistogram();
        long requests = 0;
        long errors = 0;
        long elapsed = 0;
        long cpu;
        ServeLoadReport.Heap heap;
        long threads;
        try (ClosedLoopClient client = new ClosedLoopClient(context, ports, options.connections(), mix)) {
            long sampleNanos = options.sample().toNanos();
            sampler.scheduleAtFixedRate(() -> samples.add(sample(process.pid(), System.nanoTime())), 0, sampleNanos,
                    TimeUnit.NANOSECONDS);
            progress.printf("bench: warming serve up for %s, %d connections%n", BenchOptions.text(options.warmup()),
                    options.connections());
            long warmupEnd = System.nanoTime() + options.warmup().toNanos();
            while (System.nanoTime() - warmupEnd < 0) {
                long left = warmupEnd - System.nanoTime();
                client.round(Side.REAL, Duration.ofNanos(Math.max(1_000_000, Math.min(left, options.round().toNanos()))));
            }
            progress.printf("bench: measuring serve for %s, reading its resident set every %s%n",
                    BenchOptions.text(options.duration()), BenchOptions.text(options.sample()));
            long cpu0 = cpuNanos(process);
            long measuredEnd = System.nanoTime() + options.duration().toNanos();
            while (System.nanoTime() - measuredEnd < 0) {
                long left = measuredEnd - System.nanoTime();
                ClosedLoopClient.Round round = client.round(Side.REAL,
                        Duration.ofNanos(Math.max(1_000_000, Math.min(left, options.round().toNanos()))));
                requests += round.requests();
                errors += round.errors();
                elapsed += round.elapsedNanos();
                latency.add(round.latency());
                if (!process.isAlive()) {
                    problems.add("serve exited with status " + process.exitValue() + " under load");
                    break;
                }
            }
            long cpu1 = cpuNanos(process);
            cpu = cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0;
            sampler.shutdownNow();
            sampler.awaitTermination(5, TimeUnit.SECONDS);
            threads = statusField(process.pid(), "Threads:");
            heap = heap(process.pid());
            for (BenchReview review : mix) {
                Optional<byte[]> answer = client.firstAnswer(Side.REAL, review);
                if (answer.isEmpty()) {
                    problems.add(review.name() + ": serve never answered it with HTTP 200");
                } else {
                    review.mismatch(answer.get()).ifPresent(problems::add);
                }
            }
            problems.addAll(client.firstErrors());
        } finally {
            sampler.shutdownNow();
        }
        if (errors > 0) {
            problems.addFirst(errors + " requests to serve failed");
        }
        SideResult result = SideResult.of(Side.REAL, requests, errors, elapsed, cpu, latency);
        return new ServeLoadReport(options, process.pid(), jvmOptions, readyMillis, idle, List.copyOf(samples),
                result, heap, threads, problems);
    }

    /** Reads serve's JSON log from the pipe: the port from its {@code server-started} line, the rest discarded. */
    private static void drain(Process process, CompletableFuture<Integer> port) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!port.isDone() && line.contains("\"server-started\"")) {
                    Optional<Object> parsed = Json.parse(line);
                    if (parsed.isPresent() && parsed.get() instanceof Map<?, ?> m
                            && m.get("port") instanceof Number n) {
                        port.complete(n.intValue());
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process ended; awaitPort says so
        }
        port.completeExceptionally(new IllegalStateException("serve closed its stdout"));
    }

    private static int awaitPort(Process process, CompletableFuture<Integer> port, Path stderr)
            throws InterruptedException {
        long deadline = System.nanoTime() + START_DEADLINE.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try {
                return port.get(50, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // not yet
            } catch (ExecutionException e) {
                process.waitFor(5, TimeUnit.SECONDS);
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("the serve process exited with status " + process.exitValue()
                        + " before it listened; its stderr ends:" + tail(stderr));
            }
        }
        throw new IllegalStateException("the serve process did not log server-started within "
                + START_DEADLINE.toSeconds() + " s; its stderr ends:" + tail(stderr));
    }

    private static long awaitReady(Process process, SSLContext context, int port, Path stderr, long launched)
            throws InterruptedException {
        byte[] readyz = KeepAliveConnection.request("GET", "/readyz", null);
        String last = "no answer";
        long deadline = System.nanoTime() + START_DEADLINE.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the serve process exited with status " + process.exitValue()
                        + " before /readyz answered 200; its stderr ends:" + tail(stderr));
            }
            try (KeepAliveConnection c = new KeepAliveConnection(context, port)) {
                KeepAliveConnection.Response r = c.exchange(readyz);
                if (r.status() == 200) {
                    return (System.nanoTime() - launched) / 1_000_000;
                }
                last = "HTTP " + r.status();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("the serve process never answered /readyz with 200 within "
                + START_DEADLINE.toSeconds() + " s (last: " + last + ")");
    }

    private static void stop(Process process) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(STOP_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(STOP_DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** The last lines of serve's stderr, each on its own indented line. */
    private static String tail(Path stderr) {
        try {
            List<String> lines = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            List<String> last = lines.subList(Math.max(0, lines.size() - STDERR_TAIL_LINES), lines.size());
            return last.isEmpty() ? " (nothing)" : "\n  " + String.join("\n  ", last);
        } catch (IOException | UncheckedIOException e) {
            return " (unreadable: " + e.getMessage() + ")";
        }
    }

    /** The process's CPU time so far, user and system, in nanoseconds; -1 when unknown. */
    private static long cpuNanos(Process process) {
        return process.info().totalCpuDuration().map(Duration::toNanos).orElse(-1L);
    }

    static Sample sample(long pid, long nanos) {
        long[] kib = statusFields(pid, "VmRSS:", "RssAnon:", "RssFile:");
        return new Sample(nanos, bytes(kib[0]), bytes(kib[1]), bytes(kib[2]));
    }

    private static long bytes(long kib) {
        return kib < 0 ? -1 : kib * 1024;
    }

    private static long statusField(long pid, String field) {
        return statusFields(pid, field)[0];
    }

    /** Fields of {@code /proc/<pid>/status}, their first number each; -1 for one not there. */
    static long[] statusFields(long pid, String... fields) {
        long[] values = new long[fields.length];
        java.util.Arrays.fill(values, -1);
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                for (int i = 0; i < fields.length; i++) {
                    if (line.startsWith(fields[i])) {
                        values[i] = Long.parseLong(line.substring(fields[i].length()).strip().split("\\s+")[0]);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, or not Linux: unknown
        }
        return values;
    }

    /**
     * The heap at the end ({@code jcmd <pid> GC.heap_info}, which does not collect), summed over the generations;
     * {@link ServeLoadReport.Heap#UNKNOWN} without jcmd.
     */
    private static ServeLoadReport.Heap heap(long pid) throws InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            return ServeLoadReport.Heap.UNKNOWN;
        }
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.heap_info")
                    .redirectErrorStream(true).start();
            String info = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return ServeLoadReport.Heap.UNKNOWN;
            }
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("total (\\d+)K, used (\\d+)K").matcher(info);
            long total = 0;
            long used = 0;
            while (m.find()) { // Serial prints one line per generation; G1 one for the heap
                total += Long.parseLong(m.group(1));
                used += Long.parseLong(m.group(2));
            }
            return total == 0 ? ServeLoadReport.Heap.UNKNOWN : new ServeLoadReport.Heap(used * 1024, total * 1024);
        } catch (IOException e) {
            return ServeLoadReport.Heap.UNKNOWN;
        }
    }
}
