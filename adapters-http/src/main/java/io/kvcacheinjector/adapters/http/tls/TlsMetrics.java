package io.kvcacheinjector.adapters.http.tls;

import io.kvcacheinjector.adapters.http.telemetry.MetricSource;
import io.kvcacheinjector.adapters.http.telemetry.PrometheusText;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * TLS metrics: {@code kvcache_injector_tls_reloads_total{result="applied|failed"}} and
 * {@code kvcache_injector_tls_certificate_expiry_timestamp_seconds}, the {@code notAfter} of the certificate the
 * server presents now.
 */
public final class TlsMetrics implements MetricSource {
    private final LongAdder applied = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final AtomicLong notAfterMillis = new AtomicLong(-1);

    /** The serving certificate is now {@code leaf}. */
    public void serving(X509Certificate leaf) {
        notAfterMillis.set(leaf.getNotAfter().getTime());
    }

    /** New material from the files was applied. */
    public void reloadApplied() {
        applied.increment();
    }

    /** Changed files could not be applied; the previous certificate stays. */
    public void reloadFailed() {
        failed.increment();
    }

    public long appliedCount() {
        return applied.sum();
    }

    public long failedCount() {
        return failed.sum();
    }

    @Override
    public void appendTo(StringBuilder out) {
        PrometheusText.header(out, "kvcache_injector_tls_reloads_total", "counter",
                "Certificate file changes seen, by result: applied, or failed (the previous certificate stays).");
        PrometheusText.sample(out, "kvcache_injector_tls_reloads_total", applied.sum(), "result", "applied");
        PrometheusText.sample(out, "kvcache_injector_tls_reloads_total", failed.sum(), "result", "failed");
        long notAfter = notAfterMillis.get();
        if (notAfter >= 0) {
            PrometheusText.header(out, "kvcache_injector_tls_certificate_expiry_timestamp_seconds", "gauge",
                    "When the serving certificate expires, in seconds since the Unix epoch.");
            PrometheusText.sample(out, "kvcache_injector_tls_certificate_expiry_timestamp_seconds", notAfter / 1000.0);
        }
    }
}
