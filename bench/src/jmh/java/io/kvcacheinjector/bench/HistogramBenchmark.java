package io.kvcacheinjector.bench;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@code bench}'s {@link LatencyHistogram} against HdrHistogram's {@link Histogram} (issue 23), used the way
 * {@code bench} uses it: each client thread records into its own histogram (no sharing, no locks), the round
 * merges them ({@code add}), and the report reads p50/p90/p99/max (here p99.9 too). On the same latency samples,
 * {@link LatencySamples}. {@code impl}:
 * <ul>
 *   <li>{@code latency}: ours, 128 log-linear steps per power of two up to 2^36 ns;</li>
 *   <li>{@code hdr3}: {@code new Histogram(1, 2^36 - 1, 3)}, 3 significant digits over our range (1 024 steps per
 *       power of two, 0.1 %);</li>
 *   <li>{@code hdr2}: {@code new Histogram(1, 2^36 - 1, 2)}, 2 significant digits, which is 128 steps per power of
 *       two: the same resolution as ours.</li>
 * </ul>
 * {@code -prof gc} gives the allocation per operation; {@code create} allocates one empty histogram, so its
 * {@code gc.alloc.rate.norm} is the histogram's footprint. The accuracy is {@link HistogramAccuracy}'s.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx384m"})
public class HistogramBenchmark {
    static final long HIGHEST = LatencyHistogram.CEILING;

    /** One implementation behind the three calls {@code bench} makes. */
    interface Recorder {
        void record(long nanos);

        void add(Recorder other);

        long percentilesSum();
    }

    static Recorder create(String impl) {
        return switch (impl) {
            case "latency" -> new Ours(new LatencyHistogram());
            case "hdr3" -> new Hdr(new Histogram(1, HIGHEST, 3));
            case "hdr2" -> new Hdr(new Histogram(1, HIGHEST, 2));
            default -> throw new IllegalArgumentException("impl is latency, hdr3 or hdr2, not " + impl);
        };
    }

    record Ours(LatencyHistogram h) implements Recorder {
        @Override
        public void record(long nanos) {
            h.record(nanos);
        }

        @Override
        public void add(Recorder other) {
            h.add(((Ours) other).h);
        }

        @Override
        public long percentilesSum() {
            return h.percentile(0.50) + h.percentile(0.90) + h.percentile(0.99) + h.percentile(0.999) + h.max();
        }
    }

    record Hdr(Histogram h) implements Recorder {
        @Override
        public void record(long nanos) {
            h.recordValue(nanos);
        }

        @Override
        public void add(Recorder other) {
            h.add(((Hdr) other).h);
        }

        @Override
        public long percentilesSum() {
            return h.getValueAtPercentile(50) + h.getValueAtPercentile(90) + h.getValueAtPercentile(99)
                    + h.getValueAtPercentile(99.9) + h.getMaxValue();
        }
    }

    /** A thread's own histogram, as each of {@code bench}'s client threads has one, fed the samples in turn. */
    @State(Scope.Thread)
    public static class PerThread {
        @Param({"latency", "hdr3", "hdr2"})
        public String impl;

        Recorder recorder;
        long[] samples;
        int next;

        @Setup(Level.Trial)
        public void setUp() {
            recorder = create(impl);
            samples = LatencySamples.shuffled();
        }
    }

    /** A histogram holding every sample, and a second one for the merge, as a round's threads leave them. */
    @State(Scope.Thread)
    public static class Filled {
        @Param({"latency", "hdr3", "hdr2"})
        public String impl;

        Recorder full;
        Recorder total;

        @Setup(Level.Trial)
        public void setUp() {
            full = create(impl);
            for (long v : LatencySamples.shuffled()) {
                full.record(v);
            }
            total = create(impl);
        }
    }

    /** The cost of one {@code record} (the one call on the measured request's path), from one thread. */
    @Benchmark
    public void record(PerThread s) {
        s.recorder.record(s.samples[s.next]);
        s.next = (s.next + 1) & (LatencySamples.COUNT - 1);
    }

    /** The same with two threads at once, each into its own histogram, as {@code bench}'s client threads do. */
    @Benchmark
    @org.openjdk.jmh.annotations.Threads(2)
    public void recordTwoThreads(PerThread s) {
        s.recorder.record(s.samples[s.next]);
        s.next = (s.next + 1) & (LatencySamples.COUNT - 1);
    }

    /** p50 + p90 + p99 + p99.9 + max of a histogram holding the 2^20 samples: what a report line reads. */
    @Benchmark
    public long percentiles(Filled s) {
        return s.full.percentilesSum();
    }

    /** One thread's histogram merged into the round's ({@code ClosedLoopClient} does it once per thread per round). */
    @Benchmark
    public void merge(Filled s) {
        s.total.add(s.full);
    }

    /** One empty histogram: {@code -prof gc}'s bytes per operation is its footprint. */
    @Benchmark
    public void create(PerThread s, Blackhole bh) {
        bh.consume(create(s.impl));
    }
}
