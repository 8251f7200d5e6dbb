package io.kvcacheinjector.adapters.http.telemetry;

import io.kvcacheinjector.domain.Webhook;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The admission metrics: {@code kvcache_injector_admissions_total{webhook,outcome,reason}} and the histogram
 * {@code kvcache_injector_admission_duration_seconds{webhook}}, as Prometheus Java client metrics (not registered
 * until {@link #registerIn}). Thread-safe.
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

    private final Counter admissions = Counter.builder()
            .name(ADMISSIONS_TOTAL)
            .help("Admission reviews answered, by webhook, outcome (admitted, refused, skipped, error) and reason code.")
            .labelNames("webhook", "outcome", "reason")
            .withoutExemplars()
            .build();
    private final Histogram durations = Histogram.builder()
            .name(DURATION_SECONDS)
            .help("Time from receiving a review's body to its encoded answer, in seconds.")
            .labelNames("webhook")
            .classicOnly()
            .classicUpperBounds(BUCKETS.stream().mapToDouble(Double::doubleValue).toArray())
            .withoutExemplars()
            .build();
    // the series every review touches, looked up once
    private final Map<Webhook, CounterDataPoint> admitted = new EnumMap<>(Webhook.class);
    private final Map<Webhook, DistributionDataPoint> duration = new EnumMap<>(Webhook.class);

    public AdmissionMetrics() {
        for (Webhook w : Webhook.values()) {
            // looking a series up creates it at zero: admitted, error and the histogram exist before the first review
            admitted.put(w, admissions.labelValues(w.path(), AdmissionOutcome.ADMITTED.label(), ""));
            admissions.initLabelValues(w.path(), AdmissionOutcome.ERROR.label(), "");
            duration.put(w, durations.labelValues(w.path()));
        }
    }

    /** Records one answered review. {@code reason} is empty for admissions and errors. */
    public void record(Webhook webhook, AdmissionOutcome outcome, String reason, long durationNanos) {
        Objects.requireNonNull(webhook, "webhook");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(reason, "reason");
        if (outcome == AdmissionOutcome.ADMITTED && reason.isEmpty()) {
            admitted.get(webhook).inc();
        } else {
            admissions.labelValues(webhook.path(), outcome.label(), reason).inc();
        }
        duration.get(webhook).observe(Math.max(0, durationNanos) / 1e9);
    }

    /** The current value of one counter series (0 when it was never recorded). */
    public long count(Webhook webhook, AdmissionOutcome outcome, String reason) {
        for (CounterSnapshot.CounterDataPointSnapshot p : admissions.collect().getDataPoints()) {
            if (p.getLabels().get("webhook").equals(webhook.path()) && p.getLabels().get("outcome").equals(outcome.label())
                    && p.getLabels().get("reason").equals(reason)) {
                return (long) p.getValue();
            }
        }
        return 0;
    }

    /** How many reviews of {@code webhook} the histogram has observed. */
    public long observed(Webhook webhook) {
        for (HistogramSnapshot.HistogramDataPointSnapshot p : durations.collect().getDataPoints()) {
            if (p.getLabels().get("webhook").equals(webhook.path())) {
                return p.getCount();
            }
        }
        return 0;
    }

    @Override
    public void registerIn(PrometheusRegistry registry) {
        registry.register(admissions);
        registry.register(durations);
    }
}
