package io.kvcacheinjector.bench;

import io.kvcacheinjector.domain.json.Json;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The outcome of one {@code bench} run, as a table ({@link #table()}) or one JSON object ({@link #json()}).
 *
 * @param options          how it was run
 * @param mix              the reviews sent, in turn, to both sides
 * @param real             the real webhook
 * @param baseline         the baseline
 * @param decision         the in-process timing of the vLLM review without HTTP
 * @param readyMillis      from the process start to the real webhook's first {@code /readyz} 200
 * @param cold             the first reviews after that, one at a time, before any warm-up
 * @param warmupMillis     how long the warm-up lasted
 * @param warmupJitQuiet   whether it ended because the JIT compilers were quiet (else it hit its limit)
 * @param jitMillis        the JIT compilation time during the measured rounds (-1: unknown)
 * @param rssMaxBytes      the largest resident set seen after a measured round
 * @param rssAfterBytes    the resident set after the run (servers still up)
 * @param heapUsedBytes    the heap in use after the run
 * @param heapCommittedBytes the heap committed after the run
 * @param heapMaxBytes     the heap limit
 * @param nonHeapUsedBytes metaspace, code cache and the other non-heap pools after the run
 * @param runtime          the JVM version and vendor
 * @param processors       the processors the JVM sees
 * @param collectors       the garbage collectors
 * @param jvmOptions       the JVM's command-line options
 * @param problems         why the numbers cannot be trusted (errors, answers that are not what the real webhook
 *                         must answer); empty for a good run
 */
public record BenchReport(BenchOptions options, List<BenchReview> mix, SideResult real, SideResult baseline,
                          DecisionTiming.Result decision, long readyMillis, ColdStart cold, long warmupMillis,
                          boolean warmupJitQuiet, long jitMillis, OptionalLong rssMaxBytes,
                          OptionalLong rssAfterBytes, long heapUsedBytes, long heapCommittedBytes, long heapMaxBytes,
                          long nonHeapUsedBytes, String runtime, int processors, List<String> collectors,
                          List<String> jvmOptions, List<String> problems) {

    /** Issue 8's targets. */
    public static final double MIN_THROUGHPUT_RATIO = 0.7;
    public static final long MAX_P99_EXCESS_NANOS = 1_000_000;
    public static final long MAX_DECISION_MEDIAN_NANOS = 100_000;
    public static final long MAX_READY_MILLIS = 2_000;
    public static final long MAX_RSS_BYTES = 256L * 1024 * 1024;

    public BenchReport {
        mix = List.copyOf(mix);
        collectors = List.copyOf(collectors);
        jvmOptions = List.copyOf(jvmOptions);
        problems = List.copyOf(problems);
    }

    /** Real requests/s over baseline requests/s (0 when the baseline answered nothing). */
    public double throughputRatio() {
        double b = baseline.requestsPerSecond();
        return b <= 0 ? 0 : real.requestsPerSecond() / b;
    }

    /**
     * Baseline CPU per answer over real CPU per answer (0 when unknown): the throughput ratio the two sides would
     * show if each had the machine to itself. On a machine shared with other work it is steadier than
     * {@link #throughputRatio()}, because the other work takes CPU from the two sides' rounds unevenly.
     */
    public double cpuRatio() {
        double r = real.cpuMicrosPerRequest();
        return r <= 0 ? 0 : baseline.cpuMicrosPerRequest() / r;
    }

    /** The real p99 minus the baseline p99, in nanoseconds (negative when the real one was faster). */
    public long p99ExcessNanos() {
        return real.p99Nanos() - baseline.p99Nanos();
    }

    /** Whether the run produced trustworthy numbers: no errors, and the answers were the expected ones. */
    public boolean valid() {
        return problems.isEmpty();
    }

    /** Each target with whether this run met it, in the order of the issue. */
    public Map<String, Boolean> targets() {
        Map<String, Boolean> t = new LinkedHashMap<>();
        t.put("throughput ratio >= " + MIN_THROUGHPUT_RATIO, throughputRatio() >= MIN_THROUGHPUT_RATIO);
        t.put("p99 within 1 ms of the baseline", p99ExcessNanos() <= MAX_P99_EXCESS_NANOS);
        t.put("decision median < 100 us (vLLM Pod)", decision.decisionMedianNanos() < MAX_DECISION_MEDIAN_NANOS);
        t.put("ready < 2 s from process start", readyMillis < MAX_READY_MILLIS);
        t.put("RSS < 256 MiB under load", rssMaxBytes.isPresent() && rssMaxBytes.getAsLong() < MAX_RSS_BYTES);
        return t;
    }

    /** The report as text for a terminal. */
    public String table() {
        StringBuilder out = new StringBuilder(2048);
        out.append(String.format(Locale.ROOT,
                "kvcache-injector bench: %d connections per side, %s measured in %d alternating rounds of %s after a"
                        + " %.1f s warm-up (%s); JIT during the measurement: %s%n",
                options.connections(), BenchOptions.text(options.duration()), options.rounds(),
                BenchOptions.text(options.round()), warmupMillis / 1e3,
                warmupJitQuiet ? "until the JIT was quiet" : "the JIT was still compiling when it ended",
                jitMillis < 0 ? "unknown" : jitMillis + " ms"));
        out.append("reviews, in turn on every connection: ");
        List<String> bodies = new ArrayList<>();
        for (BenchReview r : mix) {
            bodies.add(r.name() + " (" + r.size() + " B, " + (r.expected() == BenchReview.Expected.REFUSED
                    ? "refused " + r.refusal() : "patched") + ")");
        }
        out.append(String.join(", ", bodies)).append(System.lineSeparator()).append(System.lineSeparator());
        out.append(String.format(Locale.ROOT, "%-9s %10s %10s %9s %9s %9s %9s %7s %10s %6s%n", "", "requests",
                "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "errors", "cpu us/req", "cpu %"));
        for (SideResult s : List.of(real, baseline)) {
            out.append(String.format(Locale.ROOT, "%-9s %10d %10.1f %9.3f %9.3f %9.3f %9.3f %7d %10.1f %6.1f%n",
                    s.side().label(), s.requests(), s.requestsPerSecond(), s.p50Nanos() / 1e6, s.p90Nanos() / 1e6,
                    s.p99Nanos() / 1e6, s.maxNanos() / 1e6, s.errors(), s.cpuMicrosPerRequest(),
                    100 * s.cpuShare(processors)));
        }
        out.append(System.lineSeparator());
        out.append(String.format(Locale.ROOT, "throughput ratio real/baseline: %.3f   p99 real - baseline: %+.3f ms"
                        + "   CPU per review baseline/real: %.3f%n",
                throughputRatio(), p99ExcessNanos() / 1e6, cpuRatio()));
        out.append(String.format(Locale.ROOT,
                "in memory, %s review, median (p99) of %d calls: decision (Pod tree -> patch bytes) %.1f us (%.1f us),"
                        + " handler (review bytes -> response bytes) %.1f us (%.1f us)%n",
                decision.review(), decision.runs(), decision.decisionMedianNanos() / 1e3,
                decision.decisionP99Nanos() / 1e3, decision.handlerMedianNanos() / 1e3,
                decision.handlerP99Nanos() / 1e3));
        out.append(String.format(Locale.ROOT, "ready: the real webhook answered /readyz %d ms after the process started%n",
                readyMillis));
        out.append(String.format(Locale.ROOT,
                "cold start: the first %d reviews after that, one at a time: first %.1f ms, p50 %.3f ms, p90 %.3f ms,"
                        + " max %.1f ms%s%n",
                cold.requests(), cold.firstNanos() / 1e6, cold.p50Nanos() / 1e6, cold.p90Nanos() / 1e6,
                cold.maxNanos() / 1e6, cold.errors() == 0 ? "" : ", " + cold.errors() + " failed"));
        out.append(String.format(Locale.ROOT,
                "memory: RSS %s after the run, at most %s after a measured round; heap %s used, %s committed, %s max;"
                        + " non-heap %s%n",
                mib(rssAfterBytes), mib(rssMaxBytes), mib(heapUsedBytes), mib(heapCommittedBytes), mib(heapMaxBytes),
                mib(nonHeapUsedBytes)));
        out.append(String.format(Locale.ROOT, "jvm: %s, %d processors, %s, options %s%n", runtime, processors,
                String.join(" + ", collectors), jvmOptions.isEmpty() ? "(none)" : String.join(" ", jvmOptions)));
        out.append("targets:");
        targets().forEach((target, met) -> out.append(System.lineSeparator()).append("  ")
                .append(met ? "met     " : "MISSED  ").append(target));
        out.append(System.lineSeparator());
        if (!problems.isEmpty()) {
            out.append("THE NUMBERS ABOVE ARE NOT VALID:").append(System.lineSeparator());
            problems.forEach(p -> out.append("  ").append(p).append(System.lineSeparator()));
        }
        return out.toString();
    }

    /** The report as one JSON object (durations in milliseconds, sizes in bytes). */
    public String json() {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("valid", valid());
        Map<String, Object> opts = new LinkedHashMap<>();
        opts.put("durationMs", options.duration().toMillis());
        opts.put("warmupMs", options.warmup().toMillis());
        opts.put("maxWarmupMs", options.warmupLimit().toMillis());
        opts.put("roundMs", options.round().toMillis());
        opts.put("rounds", options.rounds());
        opts.put("connections", options.connections());
        o.put("options", opts);
        List<Object> reviews = new ArrayList<>();
        for (BenchReview r : mix) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", r.name());
            m.put("webhook", r.webhook().path());
            m.put("bytes", r.size());
            m.put("expected", r.expected() == BenchReview.Expected.REFUSED ? "refused " + r.refusal() : "patched");
            reviews.add(m);
        }
        o.put("reviews", reviews);
        o.put("real", side(real));
        o.put("baseline", side(baseline));
        o.put("throughputRatio", decimal(throughputRatio(), 4));
        o.put("p99ExcessMs", decimal(p99ExcessNanos() / 1e6, 3));
        o.put("cpuRatio", decimal(cpuRatio(), 4));
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("review", decision.review());
        d.put("runs", decision.runs());
        d.put("decisionMedianUs", decimal(decision.decisionMedianNanos() / 1e3, 1));
        d.put("decisionP99Us", decimal(decision.decisionP99Nanos() / 1e3, 1));
        d.put("handlerMedianUs", decimal(decision.handlerMedianNanos() / 1e3, 1));
        d.put("handlerP99Us", decimal(decision.handlerP99Nanos() / 1e3, 1));
        o.put("inMemory", d);
        o.put("readyMs", readyMillis);
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("requests", cold.requests());
        c.put("firstMs", decimal(cold.firstNanos() / 1e6, 3));
        c.put("p50Ms", decimal(cold.p50Nanos() / 1e6, 3));
        c.put("p90Ms", decimal(cold.p90Nanos() / 1e6, 3));
        c.put("maxMs", decimal(cold.maxNanos() / 1e6, 3));
        c.put("errors", cold.errors());
        o.put("coldStart", c);
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("ms", warmupMillis);
        w.put("jitQuiet", warmupJitQuiet);
        w.put("jitMsDuringMeasurement", jitMillis);
        o.put("warmup", w);
        Map<String, Object> mem = new LinkedHashMap<>();
        mem.put("rssAfterBytes", rssAfterBytes.isPresent() ? rssAfterBytes.getAsLong() : null);
        mem.put("rssMaxBytes", rssMaxBytes.isPresent() ? rssMaxBytes.getAsLong() : null);
        mem.put("heapUsedBytes", heapUsedBytes);
        mem.put("heapCommittedBytes", heapCommittedBytes);
        mem.put("heapMaxBytes", heapMaxBytes);
        mem.put("nonHeapUsedBytes", nonHeapUsedBytes);
        o.put("memory", mem);
        Map<String, Object> jvm = new LinkedHashMap<>();
        jvm.put("runtime", runtime);
        jvm.put("processors", processors);
        jvm.put("collectors", collectors);
        jvm.put("options", jvmOptions);
        o.put("jvm", jvm);
        Map<String, Object> t = new LinkedHashMap<>();
        targets().forEach(t::put);
        o.put("targets", t);
        o.put("problems", problems);
        return Json.write(o);
    }

    private Map<String, Object> side(SideResult s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("requests", s.requests());
        m.put("errors", s.errors());
        m.put("seconds", decimal(s.seconds(), 3));
        m.put("requestsPerSecond", decimal(s.requestsPerSecond(), 1));
        m.put("p50Ms", decimal(s.p50Nanos() / 1e6, 3));
        m.put("p90Ms", decimal(s.p90Nanos() / 1e6, 3));
        m.put("p99Ms", decimal(s.p99Nanos() / 1e6, 3));
        m.put("maxMs", decimal(s.maxNanos() / 1e6, 3));
        m.put("meanMs", decimal(s.meanNanos() / 1e6, 3));
        m.put("cpuMicrosPerRequest", decimal(s.cpuMicrosPerRequest(), 1));
        m.put("cpuSeconds", decimal(s.cpuNanos() / 1e9, 3));
        return m;
    }

    private static BigDecimal decimal(double value, int scale) {
        return Double.isFinite(value) ? BigDecimal.valueOf(value).setScale(scale, RoundingMode.HALF_UP) : BigDecimal.ZERO;
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024.0));
    }

    private static String mib(OptionalLong bytes) {
        return bytes.isPresent() ? mib(bytes.getAsLong()) : "(unknown)";
    }
}
