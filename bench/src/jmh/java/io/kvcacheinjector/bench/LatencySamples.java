package io.kvcacheinjector.bench;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * 2^20 request latencies in nanoseconds, the same on every run (a fixed seed): 99 % log-normal around 300 µs (median
 * 300 µs, σ = 0.6 of the logarithm, so p99 of that part about 1.2 ms), 1 % slow requests spread evenly on a log scale
 * from 1 ms to 50 ms (a GC pause, a busy core), in random order.
 */
final class LatencySamples {
    static final int COUNT = 1 << 20;
    private static final long[] SAMPLES = generate();

    private LatencySamples() {
    }

    /** The samples in their random order (a copy). */
    static long[] shuffled() {
        return SAMPLES.clone();
    }

    /** The samples sorted (a copy). */
    static long[] sorted() {
        long[] s = SAMPLES.clone();
        Arrays.sort(s);
        return s;
    }

    /** The exact value of rank ceil(q·n) (at least 1), the rank {@link LatencyHistogram#percentile} answers for. */
    static long exact(long[] sorted, double quantile) {
        long rank = Math.max(1, (long) Math.ceil(quantile * sorted.length));
        return sorted[(int) Math.min(rank, sorted.length) - 1];
    }

    private static long[] generate() {
        SplittableRandom random = new SplittableRandom(23);
        long[] s = new long[COUNT];
        for (int i = 0; i < COUNT; i++) {
            double nanos;
            if (random.nextInt(100) == 0) {
                nanos = 1e6 * Math.pow(50, random.nextDouble());
            } else {
                nanos = 300_000 * Math.exp(0.6 * random.nextGaussian());
            }
            s[i] = Math.max(1, Math.round(nanos));
        }
        return s;
    }
}
