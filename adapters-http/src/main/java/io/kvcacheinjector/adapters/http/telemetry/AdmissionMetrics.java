package io.kvcacheinjector.adapters.http.telemetry;

import io.kvcacheinjector.domain.Webhook;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * The admission metrics: {@code kvcache_injector_admissions_total{webhook,outcome,reason}} and the histogram
 * {@code kvcache_injector_admission_duration_seconds{webhook}}. Thread-safe; recording is lock-free.
 *
 * <p>The {@code reason} label holds catalogue codes only (comma-joined for a freeze refusal), never free text, so
 * its cardinality stays bounded. Every webhook's {@code admitted} and {@code error} series, and its histogram,
 * exist from the start with zero values, so rates and alerts work before the first review.
 */
public final class AdmissionMetrics implements MetricSource {
    /** Counter family name. */
    public static final String ADMISSIONS_TOTAL = "kvcache_injector_admissions_total";
    /** Histogram family name. */
    public static final String DURATION_SECONDS = "kvcache_injector_admission_duration_seconds";
    /** Upper bounds of the duration buckets, in seconds. */
    public static final List<Double> BUCKETS =
            List.of(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0);

    private record SeriesKey(Webhook webhook, AdmissionOutcome outcome, String reason) {
    }

    private static final Comparator<SeriesKey> ORDER = Comparator.comparing(SeriesKey::webhook)
            .thenComparing(SeriesKey::outcome)
            .thenComparing(SeriesKey::reason);

    private final Map<SeriesKey, LongAdder> counters = new ConcurrentHashMap<>();
    private final Map<Webhook, Histogram> durations = new EnumMap<>(Webhook.class);

    public AdmissionMetrics() {
        for (Webhook w : Webhook.values()) {
            durations.put(w, new Histogram());
            counters.put(new SeriesKey(w, AdmissionOutcome.ADMITTED, ""), new LongAdder());
            counters.put(new SeriesKey(w, AdmissionOutcome.ERROR, ""), new LongAdder());
        }
    }

    /** Records one answered review. {@code reason} is empty for admissions and errors. */
    public void record(Webhook webhook, AdmissionOutcome outcome, String reason, long durationNanos) {
        Objects.requireNonNull(webhook, "webhook");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(reason, "reason");
        counters.computeIfAbsent(new SeriesKey(webhook, outcome, reason), k -> new LongAdder()).increment();
        durations.get(webhook).observe(Math.max(0, durationNanos) / 1e9);
    }

    /** The current value of one counter series (0 when it was never recorded). */
    public long count(Webhook webhook, AdmissionOutcome outcome, String reason) {
        LongAdder a = counters.get(new SeriesKey(webhook, outcome, reason));
        return a == null ? 0 : a.sum();
    }

    /** How many reviews of {@code webhook} the histogram has observed. */
    public long observed(Webhook webhook) {
        return durations.get(webhook).count.sum();
    }

    @Override
    public void appendTo(StringBuilder out) {
        PrometheusText.header(out, ADMISSIONS_TOTAL, "counter",
                "Admission reviews answered, by webhook, outcome (admitted, refused, skipped, error) and reason code.");
        counters.entrySet().stream()
                .sorted(Map.Entry.comparingByKey(ORDER))
                .forEach(e -> PrometheusText.sample(out, ADMISSIONS_TOTAL, e.getValue().sum(),
                        "webhook", e.getKey().webhook().path(),
                        "outcome", e.getKey().outcome().label(),
                        "reason", e.getKey().reason()));

        PrometheusText.header(out, DURATION_SECONDS, "histogram",
                "Time from receiving a review's body to its encoded answer, in seconds.");
        for (Webhook w : Webhook.values()) {
            durations.get(w).appendTo(out, w.path());
        }
    }

    private static final class Histogram {
        private final LongAdder[] buckets = new LongAdder[BUCKETS.size()];
        private final LongAdder count = new LongAdder();
        private final DoubleAdder sum = new DoubleAdder();

        Histogram() {
            for (int i = 0; i < buckets.length; i++) {
                buckets[i] = new LongAdder();
            }
        }

        void observe(double seconds) {
            for (int i = 0; i < buckets.length; i++) {
                if (seconds <= BUCKETS.get(i)) {
                    buckets[i].increment();
                    break;
                }
            }
            count.increment();
            sum.add(seconds);
        }

        void appendTo(StringBuilder out, String webhook) {
            long total = count.sum();
            double seconds = sum.sum();
            long cumulative = 0;
            for (int i = 0; i < buckets.length; i++) {
                cumulative += buckets[i].sum();
                PrometheusText.sample(out, DURATION_SECONDS + "_bucket", Math.min(cumulative, total),
                        "webhook", webhook, "le", PrometheusText.number(BUCKETS.get(i)));
            }
            PrometheusText.sample(out, DURATION_SECONDS + "_bucket", total, "webhook", webhook, "le", "+Inf");
            PrometheusText.sample(out, DURATION_SECONDS + "_sum", seconds, "webhook", webhook);
            PrometheusText.sample(out, DURATION_SECONDS + "_count", total, "webhook", webhook);
        }
    }
}
