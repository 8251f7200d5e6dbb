package io.kvcacheinjector.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void percentilesOfAUniformSpreadAreWithinTheBucketPrecision() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 100_000; v++) {
            h.record(v * 1_000); // 1 µs .. 100 ms
        }
        assertThat(h.count()).isEqualTo(100_000);
        assertThat((double) h.percentile(0.50)).isCloseTo(50_000_000, within(50_000_000 * 0.004));
        assertThat((double) h.percentile(0.90)).isCloseTo(90_000_000, within(90_000_000 * 0.004));
        assertThat((double) h.percentile(0.99)).isCloseTo(99_000_000, within(99_000_000 * 0.004));
        assertThat(h.percentile(1.0)).isEqualTo(100_000_000);
        assertThat(h.max()).isEqualTo(100_000_000);
        assertThat(h.mean()).isCloseTo(50_000_500.0, within(1.0));
    }

    @Test
    void everyPercentileOfARealisticSpreadIsWithinTheDocumentedErrorOfTheExactOne() {
        // log-normal around 300 µs (σ = 0.6 of the logarithm) and 1 % slow requests from 1 ms to 50 ms, fixed seed
        SplittableRandom random = new SplittableRandom(23);
        long[] samples = new long[1 << 18];
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < samples.length; i++) {
            double nanos = random.nextInt(100) == 0 ? 1e6 * Math.pow(50, random.nextDouble())
                    : 300_000 * Math.exp(0.6 * random.nextGaussian());
            samples[i] = Math.max(1, Math.round(nanos));
            h.record(samples[i]);
        }
        Arrays.sort(samples);
        for (int i = 1; i < 10_000; i++) {
            double q = i / 10_000.0;
            long exact = samples[(int) Math.max(1, (long) Math.ceil(q * samples.length)) - 1];
            assertThat((double) h.percentile(q)).as("p%s of the exact %d ns", q * 100, exact)
                    .isCloseTo(exact, within(exact * 0.004));
        }
        assertThat(h.percentile(1.0)).isEqualTo(samples[samples.length - 1]);
        assertThat(h.max()).isEqualTo(samples[samples.length - 1]);
        assertThat(h.mean()).isCloseTo(Arrays.stream(samples).average().orElseThrow(), within(0.5));
    }


    @Test
    void aFewSlowRequestsShowInTheTailButNotInTheMedian() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 990; i++) {
            h.record(200_000); // 0.2 ms
        }
        for (int i = 0; i < 10; i++) {
            h.record(30_000_000); // 30 ms
        }
        assertThat((double) h.percentile(0.5)).isCloseTo(200_000, within(800.0));
        assertThat((double) h.percentile(0.99)).isCloseTo(200_000, within(800.0));
        assertThat((double) h.percentile(0.995)).isCloseTo(30_000_000, within(120_000.0));
        assertThat(h.max()).isEqualTo(30_000_000);
    }

    @Test
    void mergingAddsCountsAndKeepsTheLargerMaximum() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        a.record(1_000);
        a.record(2_000);
        b.record(9_000_000);
        a.add(b);
        assertThat(a.count()).isEqualTo(3);
        assertThat(a.max()).isEqualTo(9_000_000);
        assertThat(b.count()).isEqualTo(1);
    }

    @Test
    void anEmptyHistogramAnswersZeroAndABadQuantileIsRefused() {
        LatencyHistogram h = new LatencyHistogram();
        assertThat(h.percentile(0.99)).isZero();
        assertThat(h.max()).isZero();
        assertThat(h.mean()).isZero();
        assertThatThrownBy(() -> h.percentile(1.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1.5");
    }

    @Test
    void valuesBeyondTheCeilingCountAtTheCeilingButTheMaximumIsExact() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(LatencyHistogram.CEILING * 4);
        h.record(-5);
        assertThat(h.count()).isEqualTo(2);
        assertThat(h.max()).isEqualTo(LatencyHistogram.CEILING * 4);
        assertThat(h.percentile(0.0)).isZero();
    }

    @Property
    void everyValueFallsInABucketThatStartsAtOrBelowItAndIsNarrowerThanOnePart128(
            @ForAll @LongRange(min = 0, max = (1L << 36) - 1) long value) {
        int index = LatencyHistogram.index(value);
        long low = LatencyHistogram.lowest(index);
        long next = LatencyHistogram.lowest(index + 1);
        assertThat(low).isLessThanOrEqualTo(value);
        assertThat(next).isGreaterThan(value);
        assertThat(next - low).isLessThanOrEqualTo(Math.max(1, low / 128));
    }
}
