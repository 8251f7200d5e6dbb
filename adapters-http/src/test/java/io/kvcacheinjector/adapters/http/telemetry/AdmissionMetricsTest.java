package io.kvcacheinjector.adapters.http.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.Webhook;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdmissionMetricsTest {
    private final AdmissionMetrics metrics = new AdmissionMetrics();

    private String exposition() {
        StringBuilder out = new StringBuilder();
        metrics.appendTo(out);
        return out.toString();
    }

    @Test
    void countsReviewsByWebhookOutcomeAndReason() {
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.REFUSED, "key-owned", 2_000_000);
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.REFUSED, "key-owned", 2_000_000);
        metrics.record(Webhook.KVCACHE_VALIDATE, AdmissionOutcome.REFUSED, "frozen-label,frozen-record", 1);
        metrics.record(Webhook.CACHEBLEND_MUTATE, AdmissionOutcome.SKIPPED, "engine-not-found", 1);

        assertThat(exposition()).contains(
                "# TYPE kvcache_injector_admissions_total counter\n",
                "kvcache_injector_admissions_total{webhook=\"kvcache/mutate\",outcome=\"refused\",reason=\"key-owned\"} 2\n",
                "kvcache_injector_admissions_total{webhook=\"kvcache/validate\",outcome=\"refused\","
                        + "reason=\"frozen-label,frozen-record\"} 1\n",
                "kvcache_injector_admissions_total{webhook=\"cacheblend/mutate\",outcome=\"skipped\","
                        + "reason=\"engine-not-found\"} 1\n");
    }

    @Test
    void admittedAndErrorSeriesExistAtZeroBeforeTheFirstReview() {
        String text = exposition();
        for (Webhook w : Webhook.values()) {
            assertThat(text).contains("kvcache_injector_admissions_total{webhook=\"" + w.path()
                    + "\",outcome=\"admitted\",reason=\"\"} 0\n");
            assertThat(text).contains("kvcache_injector_admissions_total{webhook=\"" + w.path()
                    + "\",outcome=\"error\",reason=\"\"} 0\n");
            assertThat(text).contains("kvcache_injector_admission_duration_seconds_count{webhook=\"" + w.path()
                    + "\"} 0\n");
        }
    }

    @Test
    void theHistogramBucketsAreCumulativeAndEndAtInf() {
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.ADMITTED, "", 250_000_000);     // 0.25 s
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.ADMITTED, "", 500_000_000);     // 0.5 s
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.ADMITTED, "", 30_000_000_000L); // 30 s

        String text = exposition();
        String prefix = "kvcache_injector_admission_duration_seconds_bucket{webhook=\"kvcache/mutate\",le=";
        assertThat(text).contains(
                prefix + "\"0.0005\"} 0\n",
                prefix + "\"0.1\"} 0\n",
                prefix + "\"0.25\"} 1\n",
                prefix + "\"0.5\"} 2\n",
                prefix + "\"10\"} 2\n",
                prefix + "\"+Inf\"} 3\n",
                "kvcache_injector_admission_duration_seconds_sum{webhook=\"kvcache/mutate\"} 30.75\n",
                "kvcache_injector_admission_duration_seconds_count{webhook=\"kvcache/mutate\"} 3\n");
        assertThat(metrics.observed(Webhook.KVCACHE_MUTATE)).isEqualTo(3);
    }

    @Test
    void theOutputIsOrderedSoScrapesAreComparable() {
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.REFUSED, "pool-not-found", 1);
        metrics.record(Webhook.KVCACHE_MUTATE, AdmissionOutcome.REFUSED, "binding-missing", 1);
        String text = exposition();
        assertThat(text.indexOf("reason=\"binding-missing\"")).isLessThan(text.indexOf("reason=\"pool-not-found\""));
        assertThat(text).isEqualTo(exposition());
    }

    @Test
    void labelValuesAreEscaped() {
        assertThat(PrometheusText.escape("a\"b\\c\nd")).isEqualTo("a\\\"b\\\\c\\nd");
    }

    @Test
    void numbersUseThePrometheusSpellings() {
        assertThat(List.of(PrometheusText.number(3), PrometheusText.number(0.25), PrometheusText.number(1e-4),
                PrometheusText.number(Double.POSITIVE_INFINITY), PrometheusText.number(Double.NaN)))
                .containsExactly("3", "0.25", "0.0001", "+Inf", "NaN");
    }

    @Test
    void jvmBasicsAreExposed() {
        StringBuilder out = new StringBuilder();
        new JvmMetrics().appendTo(out);
        assertThat(out.toString()).contains("jvm_memory_bytes_used{area=\"heap\"} ", "jvm_threads_current ",
                "process_start_time_seconds ", "# TYPE jvm_gc_collection_seconds_count counter");
    }
}
