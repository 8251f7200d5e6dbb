package io.kvcacheinjector.bench;

import org.HdrHistogram.Histogram;

/**
 * Each histogram's percentiles of {@link LatencySamples} against the exact ones of the sorted samples, and each one's
 * size in memory. Run: {@code java -cp <the jmh profile's test class path> io.kvcacheinjector.bench.HistogramAccuracy}.
 */
public final class HistogramAccuracy {
    private static final double[] QUANTILES = {0.50, 0.90, 0.99, 0.999, 0.9999};

    private HistogramAccuracy() {
    }

    public static void main(String[] args) {
        long[] samples = LatencySamples.shuffled();
        long[] sorted = LatencySamples.sorted();
        LatencyHistogram ours = new LatencyHistogram();
        Histogram hdr3 = new Histogram(1, HistogramBenchmark.HIGHEST, 3);
        Histogram hdr2 = new Histogram(1, HistogramBenchmark.HIGHEST, 2);
        for (long v : samples) {
            ours.record(v);
            hdr3.recordValue(v);
            hdr2.recordValue(v);
        }
        System.out.printf("%d samples; exact max %d ns, mean %.1f ns%n", sorted.length, sorted[sorted.length - 1],
                java.util.Arrays.stream(sorted).average().orElse(0));
        System.out.printf("%-8s %12s %24s %24s %24s%n", "q", "exact ns", "latency ns (err)", "hdr3 ns (err)",
                "hdr2 ns (err)");
        for (double q : QUANTILES) {
            long exact = LatencySamples.exact(sorted, q);
            System.out.printf("%-8s %12d %24s %24s %24s%n", q, exact, cell(ours.percentile(q), exact),
                    cell(hdr3.getValueAtPercentile(q * 100), exact), cell(hdr2.getValueAtPercentile(q * 100), exact));
        }
        long max = sorted[sorted.length - 1];
        System.out.printf("%-8s %12d %24s %24s %24s%n", "max", max, cell(ours.max(), max), cell(hdr3.getMaxValue(), max),
                cell(hdr2.getMaxValue(), max));
        double worstOurs = 0;
        double worst3 = 0;
        double worst2 = 0;
        for (int i = 1; i < 10_000; i++) {
            double q = i / 10_000.0;
            long exact = LatencySamples.exact(sorted, q);
            worstOurs = Math.max(worstOurs, error(ours.percentile(q), exact));
            worst3 = Math.max(worst3, error(hdr3.getValueAtPercentile(q * 100), exact));
            worst2 = Math.max(worst2, error(hdr2.getValueAtPercentile(q * 100), exact));
        }
        System.out.printf("worst |error| over q = 0.0001..0.9999: latency %.3f %%, hdr3 %.3f %%, hdr2 %.3f %%%n",
                worstOurs * 100, worst3 * 100, worst2 * 100);
        long oursBytes = 16 + 8L * (LatencyHistogram.index(LatencyHistogram.CEILING) + 1) + 16 + 3 * 8;
        System.out.printf("footprint: latency %d B (counts array + object), hdr3 %d B, hdr2 %d B"
                + " (HdrHistogram's getEstimatedFootprintInBytes)%n", oursBytes,
                hdr3.getEstimatedFootprintInBytes(), hdr2.getEstimatedFootprintInBytes());
    }

    private static String cell(long value, long exact) {
        return String.format("%d (%+.3f %%)", value, 100.0 * (value - exact) / exact);
    }

    private static double error(long value, long exact) {
        return Math.abs((double) (value - exact) / exact);
    }
}
