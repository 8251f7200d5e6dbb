package io.kvcacheinjector.bench;

import io.kvcacheinjector.domain.json.Json;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The outcome of {@code bench --serve-process} ({@link ServeUnderLoad}), as a table or one JSON object.
 *
 * @param options     how it was run
 * @param pid         the serve process
 * @param jvmOptions  its JVM options
 * @param readyMillis from launching its JVM to its first {@code /readyz} 200
 * @param idle        its resident set a moment after that, before any review
 * @param samples     its resident set read every {@link BenchOptions#sample()} from the first review of the warm-up
 *                    to the last measured one
 * @param load        the measured rounds: answers, latency, and the serve process's own CPU time
 * @param heap        its heap at the end
 * @param threads     its threads at the end
 * @param problems    why the numbers cannot be trusted; empty for a good run
 */
public record ServeLoadReport(BenchOptions options, long pid, List<String> jvmOptions, long readyMillis,
                              ServeUnderLoad.Sample idle, List<ServeUnderLoad.Sample> samples, SideResult load,
                              Heap heap, long threads, List<String> problems) {

    /** The heap in bytes, used and committed; -1 each when unknown. */
    public record Heap(long usedBytes, long committedBytes) {
        static final Heap UNKNOWN = new Heap(-1, -1);
    }

    public ServeLoadReport {
        jvmOptions = List.copyOf(jvmOptions);
        samples = List.copyOf(samples);
        problems = List.copyOf(problems);
    }

    public boolean valid() {
        return problems.isEmpty();
    }

    /** The median of the second half of the samples of one reading (bytes); -1 without samples. */
    long secondHalfMedian(ToLongFunction<ServeUnderLoad.Sample> reading) {
        List<ServeUnderLoad.Sample> half = samples.subList(samples.size() / 2, samples.size());
        long[] values = half.stream().mapToLong(reading).filter(v -> v >= 0).sorted().toArray();
        return values.length == 0 ? -1 : values[(values.length - 1) / 2];
    }

    /** The highest sample of one reading (bytes); -1 without samples. */
    long max(ToLongFunction<ServeUnderLoad.Sample> reading) {
        return samples.stream().mapToLong(reading).max().orElse(-1);
    }

    private static final Map<String, ToLongFunction<ServeUnderLoad.Sample>> READINGS = readings();

    private static Map<String, ToLongFunction<ServeUnderLoad.Sample>> readings() {
        Map<String, ToLongFunction<ServeUnderLoad.Sample>> m = new LinkedHashMap<>();
        m.put("VmRSS", ServeUnderLoad.Sample::rss);
        m.put("RssAnon", ServeUnderLoad.Sample::rssAnon);
        m.put("RssFile", ServeUnderLoad.Sample::rssFile);
        return m;
    }

    /** How the measured {@code serve} read the cluster ({@code --informers} or a folder). */
    private String clusterView() {
        return options.informers()
                ? "informers over a stand-in API server on loopback, with the CacheBlendEngine controller (as in a Pod)"
                : "files (serve --cluster, the example cluster)";
    }

    /** The report as text for a terminal. */
    public String table() {
        StringBuilder out = new StringBuilder(1024);
        String nl = System.lineSeparator();
        out.append(String.format(Locale.ROOT, "kvcache-injector bench --serve-process: serve (pid %d) driven by %d"
                        + " connections, %s warm-up then %s measured; resident set read every %s (%d samples)%n",
                pid, options.connections(), BenchOptions.text(options.warmup()), BenchOptions.text(options.duration()),
                BenchOptions.text(options.sample()), samples.size()));
        out.append("cluster view: ").append(clusterView()).append(nl);
        out.append("jvm options: ").append(jvmOptions.isEmpty() ? "(none)" : String.join(" ", jvmOptions)).append(nl);
        out.append(String.format(Locale.ROOT, "ready: /readyz 200 %d ms after launch%n", readyMillis));
        out.append(nl);
        out.append(String.format(Locale.ROOT, "%-8s %10s %22s %10s%n", "MiB", "idle", "median of second half",
                "highest"));
        READINGS.forEach((name, reading) -> out.append(String.format(Locale.ROOT, "%-8s %10s %22s %10s%n", name,
                mib(reading.applyAsLong(idle)), mib(secondHalfMedian(reading)), mib(max(reading)))));
        out.append(nl);
        out.append(String.format(Locale.ROOT, "heap at the end: %s used, %s committed; threads: %d%n",
                mib(heap.usedBytes()), mib(heap.committedBytes()), threads));
        out.append(String.format(Locale.ROOT, "load: %d reviews, %.1f/s, p50 %.3f ms, p99 %.3f ms, max %.1f ms,"
                        + " %d errors; serve's CPU %.1f us per review%n",
                load.requests(), load.requestsPerSecond(), load.p50Nanos() / 1e6, load.p99Nanos() / 1e6,
                load.maxNanos() / 1e6, load.errors(), load.cpuMicrosPerRequest()));
        if (!problems.isEmpty()) {
            out.append("THE NUMBERS ABOVE ARE NOT VALID:").append(nl);
            problems.forEach(p -> out.append("  ").append(p).append(nl));
        }
        return out.toString();
    }

    /** The report as one JSON object (sizes in bytes, durations in milliseconds). */
    public String json() {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("valid", valid());
        o.put("mode", "serve-process");
        Map<String, Object> opts = new LinkedHashMap<>();
        opts.put("durationMs", options.duration().toMillis());
        opts.put("warmupMs", options.warmup().toMillis());
        opts.put("sampleMs", options.sample().toMillis());
        opts.put("connections", options.connections());
        o.put("options", opts);
        o.put("clusterView", options.informers() ? "informers" : "files");
        o.put("jvmOptions", jvmOptions);
        o.put("readyMs", readyMillis);
        Map<String, Object> rss = new LinkedHashMap<>();
        READINGS.forEach((name, reading) -> {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("idleBytes", reading.applyAsLong(idle));
            r.put("secondHalfMedianBytes", secondHalfMedian(reading));
            r.put("maxBytes", max(reading));
            rss.put(name, r);
        });
        o.put("resident", rss);
        o.put("samples", samples.size());
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("usedBytes", heap.usedBytes());
        h.put("committedBytes", heap.committedBytes());
        o.put("heap", h);
        o.put("threads", threads);
        Map<String, Object> l = new LinkedHashMap<>();
        l.put("requests", load.requests());
        l.put("errors", load.errors());
        l.put("requestsPerSecond", decimal(load.requestsPerSecond(), 1));
        l.put("p50Ms", decimal(load.p50Nanos() / 1e6, 3));
        l.put("p99Ms", decimal(load.p99Nanos() / 1e6, 3));
        l.put("maxMs", decimal(load.maxNanos() / 1e6, 3));
        l.put("serveCpuMicrosPerRequest", decimal(load.cpuMicrosPerRequest(), 1));
        o.put("load", l);
        o.put("problems", new ArrayList<>(problems));
        return Json.write(o);
    }

    private static BigDecimal decimal(double value, int scale) {
        return Double.isFinite(value) ? BigDecimal.valueOf(value).setScale(scale, RoundingMode.HALF_UP) : BigDecimal.ZERO;
    }

    private static String mib(long bytes) {
        return bytes < 0 ? "?" : String.format(Locale.ROOT, "%.1f", bytes / (1024.0 * 1024.0));
    }
}
