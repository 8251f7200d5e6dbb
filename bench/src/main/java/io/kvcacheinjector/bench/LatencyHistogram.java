package io.kvcacheinjector.bench;

import java.util.Arrays;

/**
 * Request latencies in nanoseconds, in fixed memory: log-linear buckets with 128 steps per power of two, so a
 * percentile is off by less than 0.4% of its value (exact below 128 ns); values above about 68 s count as 68 s.
 * The maximum is kept exactly. Not thread-safe: each client thread records into its own and they are merged.
 */
public final class LatencyHistogram {
    private static final int SUB_BITS = 7;
    private static final int SUB_COUNT = 1 << SUB_BITS;
    private static final int MAX_EXPONENT = 36;
    /** The largest value told apart from larger ones (2^36 ns, about 68.7 s). */
    static final long CEILING = (1L << MAX_EXPONENT) - 1;
    private static final int BUCKETS = SUB_COUNT + (MAX_EXPONENT - SUB_BITS) * SUB_COUNT;

    private final long[] counts = new long[BUCKETS];
    private long count;
    private long max;
    private long sum;

    /** Records one latency; a negative value counts as 0. */
    public void record(long nanos) {
        long v = Math.min(Math.max(0, nanos), CEILING);
        counts[index(v)]++;
        count++;
        sum += v;
        if (nanos > max) {
            max = nanos;
        }
    }

    /** Adds every value of {@code other} to this one. */
    public void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        count += other.count;
        sum += other.sum;
        max = Math.max(max, other.max);
    }

    public long count() {
        return count;
    }

    /** The largest recorded value (0 when empty). */
    public long max() {
        return max;
    }

    /** The mean (0 when empty). */
    public double mean() {
        return count == 0 ? 0 : (double) sum / count;
    }

    /**
     * The value below or at which a share {@code quantile} (0 to 1) of the recorded values lie: the middle of the
     * bucket holding the value of that rank, never more than the maximum; the maximum itself for the last rank.
     * 0 when empty.
     */
    public long percentile(double quantile) {
        if (!(quantile >= 0 && quantile <= 1)) {
            throw new IllegalArgumentException("a quantile is between 0 and 1, not " + quantile);
        }
        if (count == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(quantile * count));
        if (rank >= count) {
            return max;
        }
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(middle(i), max);
            }
        }
        return max;
    }

    /** A copy of this histogram. */
    public LatencyHistogram copy() {
        LatencyHistogram c = new LatencyHistogram();
        c.add(this);
        return c;
    }

    static int index(long v) {
        if (v < SUB_COUNT) {
            return (int) v;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(v);
        int sub = (int) (v >>> (exponent - SUB_BITS)) - SUB_COUNT;
        return SUB_COUNT + (exponent - SUB_BITS) * SUB_COUNT + sub;
    }

    static long lowest(int index) {
        if (index < SUB_COUNT) {
            return index;
        }
        int k = index - SUB_COUNT;
        int shift = k / SUB_COUNT;
        long sub = k % SUB_COUNT;
        return (SUB_COUNT + sub) << shift;
    }

    private static long middle(int index) {
        if (index < SUB_COUNT) {
            return index;
        }
        long low = lowest(index);
        long width = 1L << ((index - SUB_COUNT) / SUB_COUNT);
        return low + (width - 1) / 2;
    }

    @Override
    public String toString() {
        return "LatencyHistogram[count=" + count + ", p50=" + percentile(0.5) + ", max=" + max + ", buckets="
                + Arrays.stream(counts).filter(c -> c > 0).count() + "]";
    }
}
