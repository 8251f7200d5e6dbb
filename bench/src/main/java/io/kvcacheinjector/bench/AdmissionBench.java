package io.kvcacheinjector.bench;

import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One bench run: starts the real webhook (over the given use cases) and the baseline in this process, waits for
 * the real one's {@code /readyz}, sends it {@value ColdStart#REQUESTS} reviews one at a time (the cold start), warms
 * both up, drives them in alternating rounds with the same closed-loop client and the same reviews, checks that
 * every answer is what that side must answer, times the vLLM review in memory, and reports. Alternating rounds
 * spread whatever else the machine does over both sides alike.
 *
 * <p>The warm-up alternates rounds too. It lasts at least {@link BenchOptions#warmup()} and then goes on until the
 * JIT compilers are quiet — the compilation time of each of the last {@value #QUIET_PAIRS} pairs of rounds at most
 * {@value #QUIET_JIT_PERCENT}% of their wall time — or {@link BenchOptions#warmupLimit()} is reached. Measured before the JIT is done, the real
 * side (more code to compile) looks several times slower than it is in a webhook that has run for a minute, and the
 * compiler threads take CPU from both sides.
 */
public final class AdmissionBench {
    /** Timed in-memory calls of the vLLM review, after as many warm-up calls. */
    static final int DECISION_RUNS = 5_000;
    private static final int READY_ATTEMPTS = 500;
    /** The JIT counts as quiet when it compiled for at most this share of a pair of warm-up rounds. */
    static final int QUIET_JIT_PERCENT = 2;
    /** ... for this many pairs of rounds in a row (the compilers work in bursts). */
    static final int QUIET_PAIRS = 3;

    /** How the warm-up went: its length, and whether it ended because the JIT was quiet. */
    record Warmup(long millis, boolean jitQuiet) {
    }

    private AdmissionBench() {
    }

    /**
     * Runs the bench.
     *
     * @param realUseCases the use cases of the real webhook, wired as {@code serve} wires them
     * @param progress     where one line per phase goes (stderr), never the report
     * @throws IllegalStateException when a server cannot start
     */
    public static BenchReport run(BenchOptions options, AdmissionUseCases realUseCases, PrintStream progress)
            throws InterruptedException {
        return run(options, realUseCases, progress, DECISION_RUNS);
    }

    /** {@link #run(BenchOptions, AdmissionUseCases, PrintStream)} with {@code decisionRuns} in-memory calls. */
    static BenchReport run(BenchOptions options, AdmissionUseCases realUseCases, PrintStream progress,
                           int decisionRuns) throws InterruptedException {
        List<BenchReview> mix = BenchReview.httpMix();
        List<String> problems = new ArrayList<>();
        try (BenchServers servers = BenchServers.start(realUseCases)) {
            long readyMillis = awaitReady(servers, problems);
            progress.printf("bench: the real webhook answered /readyz %d ms after the process started%n", readyMillis);
            ColdStart cold = ColdStart.measure(servers.clientContext(), servers.port(Side.REAL), mix, ColdStart.REQUESTS);
            Map<Side, Integer> ports = new EnumMap<>(Side.class);
            for (Side side : Side.values()) {
                ports.put(side, servers.port(side));
            }
            Map<Side, long[]> totals = new EnumMap<>(Side.class);
            Map<Side, LatencyHistogram> latency = new EnumMap<>(Side.class);
            for (Side side : Side.values()) {
                totals.put(side, new long[4]);
                latency.put(side, new LatencyHistogram());
            }
            long rssMax = -1;
            Warmup warmup;
            long jitMillis;
            OptionalLong rssAfter;
            long heapUsed;
            long heapCommitted;
            try (ClosedLoopClient client = new ClosedLoopClient(servers.clientContext(), ports, options.connections(),
                    mix)) {
                progress.printf("bench: warming up for %s to %s, until the JIT is quiet%n",
                        BenchOptions.text(options.warmup()), BenchOptions.text(options.warmupLimit()));
                warmup = warmUp(client, options);
                progress.printf("bench: warmed up for %d ms%s%n", warmup.millis(),
                        warmup.jitQuiet() ? "" : " (the JIT was still compiling)");
                long jitStart = ProcessFacts.jitMillis();
                progress.printf("bench: measuring %d rounds of %s, %d connections per side%n", options.rounds(),
                        BenchOptions.text(options.round()), options.connections());
                for (int k = 0; k < options.rounds(); k++) {
                    Side side = k % 2 == 0 ? Side.REAL : Side.BASELINE;
                    ClosedLoopClient.Round round = client.round(side, options.round());
                    long[] t = totals.get(side);
                    t[0] += round.requests();
                    t[1] += round.errors();
                    t[2] += round.elapsedNanos();
                    t[3] += round.cpuNanos();
                    latency.get(side).add(round.latency());
                    OptionalLong rss = ProcessFacts.residentBytes();
                    if (rss.isPresent()) {
                        rssMax = Math.max(rssMax, rss.getAsLong());
                    }
                }
                jitMillis = jitStart < 0 ? -1 : ProcessFacts.jitMillis() - jitStart;
                rssAfter = ProcessFacts.residentBytes();
                heapUsed = ProcessFacts.heapUsedBytes();
                heapCommitted = ProcessFacts.heapCommittedBytes();
                check(client, mix, problems);
                problems.addAll(client.firstErrors());
            }
            SideResult real = result(Side.REAL, totals, latency);
            SideResult baseline = result(Side.BASELINE, totals, latency);
            if (real.errors() > 0 || baseline.errors() > 0) {
                problems.addFirst(real.errors() + " real and " + baseline.errors() + " baseline requests failed");
            }
            progress.printf("bench: timing the vLLM review in memory (%d calls)%n", 4 * decisionRuns);
            DecisionTiming.Result decision = DecisionTiming.measure(realUseCases, BenchReview.named("vllm"),
                    decisionRuns);
            return new BenchReport(options, mix, real, baseline, decision, readyMillis, cold, warmup.millis(),
                    warmup.jitQuiet(), jitMillis,
                    rssMax < 0 ? OptionalLong.empty() : OptionalLong.of(rssMax), rssAfter, heapUsed, heapCommitted,
                    ProcessFacts.heapMaxBytes(), ProcessFacts.nonHeapUsedBytes(), ProcessFacts.runtime(),
                    ProcessFacts.processors(), ProcessFacts.collectors(), ProcessFacts.jvmOptions(), problems);
        }
    }

    private static long awaitReady(BenchServers servers, List<String> problems) throws InterruptedException {
        byte[] readyz = KeepAliveConnection.request("GET", "/readyz", null);
        String last = "no answer";
        for (int attempt = 0; attempt < READY_ATTEMPTS; attempt++) {
            try (KeepAliveConnection c = new KeepAliveConnection(servers.clientContext(), servers.port(Side.REAL))) {
                KeepAliveConnection.Response r = c.exchange(readyz);
                if (r.status() == 200) {
                    return ProcessFacts.sinceProcessStart().toMillis();
                }
                last = "HTTP " + r.status() + " " + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(10);
        }
        problems.add("the real webhook never answered /readyz with 200 (last: " + last + ")");
        return ProcessFacts.sinceProcessStart().toMillis();
    }

    private static Warmup warmUp(ClosedLoopClient client, BenchOptions options) throws InterruptedException {
        long start = System.nanoTime();
        Duration limit = options.warmupLimit();
        if (limit.isZero()) {
            return new Warmup(0, false);
        }
        long least = start + options.warmup().toNanos();
        long most = start + limit.toNanos();
        Duration round = options.round().compareTo(limit) < 0 ? options.round() : limit;
        boolean tracked = ProcessFacts.jitMillis() >= 0;
        long pairJit = 0;
        long pairWall = 0;
        int quietPairs = 0;
        // bounded: every round takes at least `round`, and the loop ends once `most` has passed
        for (long k = 0; ; k++) {
            long jit0 = ProcessFacts.jitMillis();
            long wall0 = System.nanoTime();
            client.round(k % 2 == 0 ? Side.REAL : Side.BASELINE, round);
            long now = System.nanoTime();
            pairWall += now - wall0;
            pairJit += ProcessFacts.jitMillis() - jit0;
            if (k % 2 == 1) {
                boolean quiet = tracked && pairJit * 1_000_000L * 100 <= pairWall * QUIET_JIT_PERCENT;
                quietPairs = quiet ? quietPairs + 1 : 0;
                if (now - most >= 0 || (now - least >= 0 && (quietPairs >= QUIET_PAIRS || !tracked))) {
                    return new Warmup((now - start) / 1_000_000, quietPairs >= QUIET_PAIRS);
                }
                pairJit = 0;
                pairWall = 0;
            }
        }
    }

    private static void check(ClosedLoopClient client, List<BenchReview> mix, List<String> problems) {
        for (BenchReview review : mix) {
            Optional<byte[]> real = client.firstAnswer(Side.REAL, review);
            if (real.isEmpty()) {
                problems.add(review.name() + ": the real webhook never answered it with HTTP 200");
            } else {
                review.mismatch(real.get()).ifPresent(problems::add);
            }
            Optional<byte[]> baseline = client.firstAnswer(Side.BASELINE, review);
            if (baseline.isEmpty()) {
                problems.add(review.name() + ": the baseline never answered it with HTTP 200");
            } else {
                review.baselineMismatch(baseline.get()).ifPresent(problems::add);
            }
        }
    }

    private static SideResult result(Side side, Map<Side, long[]> totals, Map<Side, LatencyHistogram> latency) {
        long[] t = totals.get(side);
        return SideResult.of(side, t[0], t[1], t[2], t[3], latency.get(side));
    }
}
