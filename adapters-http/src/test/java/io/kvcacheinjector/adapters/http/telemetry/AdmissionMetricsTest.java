package io.kvcacheinjector.adapters.http.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.Webhook;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

class AdmissionMetricsTest {
    private final AdmissionMetrics metrics = new AdmissionMetrics();
    private final PrometheusRegistry registry = new PrometheusRegistry();

    AdmissionMetricsTest() {
        metrics.registerIn(registry);
    }

    /** The text format 0.0.4, as /metrics writes it by default. */
    private String exposition() {
        return ExpositionFormats.init().getPrometheusTextFormatWriter().toDebugString(registry.scrape());
    }

    @Test
    void countsReviewsByWebhookOutcomeAndReason() {
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.REFUSED, "key-owned", 2_000_000);
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.REFUSED, "key-owned", 2_000_000);
        metrics.record(Webhook.KVCACHE_VALIDATE, AdmissionOutcome.REFUSED, "frozen-label,frozen-record", 1);
        metrics.record(Webhook.CACHEBLEND_MUTATE, AdmissionOutcome.SKIPPED, "engine-not-found", 1);
        metrics.record(Webhook.CACHEBLEND_MUTATE, AdmissionOutcome.ADMITTED, "", 1);

        assertThat(exposition()).contains(
                "# HELP kvcache_injector_admissions_total Admission reviews answered,",
                "# TYPE kvcache_injector_admissions_total counter\n",
                "kvcache_injector_admissions_total{outcome=\"refused\",reason=\"key-owned\",webhook=\"kvcache/mutate\"} 2.0\n",
                "kvcache_injector_admissions_total{outcome=\"refused\",reason=\"frozen-label,frozen-record\","
                        + "webhook=\"kvcache/validate\"} 1.0\n",
                "kvcache_injector_admissions_total{outcome=\"skipped\",reason=\"engine-not-found\","
                        + "webhook=\"cacheblend/mutate\"} 1.0\n",
                "kvcache_injector_admissions_total{outcome=\"admitted\",reason=\"\",webhook=\"cacheblend/mutate\"} 1.0\n");
        assertThat(metrics.count(Webhook.KVCACHE_MUTATE, AdmissionOutcome.REFUSED, "key-owned")).isEqualTo(2);
        assertThat(metrics.count(Webhook.CACHEBLEND_MUTATE, AdmissionOutcome.ADMITTED, "")).isEqualTo(1);
        assertThat(metrics.count(Webhook.KVCACHE_MUTATE, AdmissionOutcome.REFUSED, "pool-not-found")).isZero();
    }

    @Test
    void admittedAndErrorSeriesExistAtZeroBeforeTheFirstReview() {
        String text = exposition();
        for (Webhook w : Webhook.values()) {
            assertThat(text).contains("kvcache_injector_admissions_total{outcome=\"admitted\",reason=\"\",webhook=\""
                    + w.path() + "\"} 0.0\n");
            assertThat(text).contains("kvcache_injector_admissions_total{outcome=\"error\",reason=\"\",webhook=\""
                    + w.path() + "\"} 0.0\n");
            assertThat(text).contains("kvcache_injector_admission_duration_seconds_count{webhook=\"" + w.path()
                    + "\"} 0\n");
        }
        // nothing else: refusals and skips appear when counted
        assertThat(text.lines().filter(l -> l.startsWith("kvcache_injector_admissions_total{"))).hasSize(6);
    }

    @Test
    void theHistogramHasTheDocumentedBucketsCumulativeAndEndingAtInf() {
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.ADMITTED, "", 250_000_000);     // 0.25 s
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.ADMITTED, "", 500_000_000);     // 0.5 s
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.ADMITTED, "", 30_000_000_000L); // 30 s

        String text = exposition();
        String prefix = "kvcache_injector_admission_duration_seconds_bucket{webhook=\"kvcache/mutate\",le=";
        assertThat(text).contains(
                "# TYPE kvcache_injector_admission_duration_seconds histogram\n",
                prefix + "\"5.0E-4\"} 0\n",
                prefix + "\"0.1\"} 0\n",
                prefix + "\"0.25\"} 1\n",
                prefix + "\"0.5\"} 2\n",
                prefix + "\"10.0\"} 2\n",
                prefix + "\"+Inf\"} 3\n",
                "kvcache_injector_admission_duration_seconds_sum{webhook=\"kvcache/mutate\"} 30.75\n",
                "kvcache_injector_admission_duration_seconds_count{webhook=\"kvcache/mutate\"} 3\n");
        assertThat(text.lines().filter(l -> l.startsWith(prefix))).hasSize(AdmissionMetrics.BUCKETS.size() + 1);
        assertThat(metrics.observed(Webhook.KVCACHE_MUTATE)).isEqualTo(3);
        assertThat(metrics.observed(Webhook.KVCACHE_VALIDATE)).isZero();
    }

    @Test
    void theOutputIsOrderedSoScrapesAreComparable() {
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.REFUSED, "pool-not-found", 1);
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.REFUSED, "binding-missing", 1);
        String text = exposition();
        assertThat(text.indexOf("reason=\"binding-missing\"")).isLessThan(text.indexOf("reason=\"pool-not-found\""));
        assertThat(text).isEqualTo(exposition());
    }
}
