package io.kvcacheinjector.adapters.http.tls;

import io.kvcacheinjector.adapters.http.telemetry.MetricSource;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicLong;

/**
 * TLS metrics: {@code kvcache_injector_tls_reloads_total{result="applied|failed"}} and
 * {@code kvcache_injector_tls_certificate_expiry_timestamp_seconds}, the {@code notAfter} of the certificate the
 * server presents now (no sample before one is loaded).
 */
public final class TlsMetrics implements MetricSource {
    private final Counter reloads = Counter.builder()
            .name("kvcache_injector_tls_reloads_total")
            .help("Certificate file changes seen, by result: applied, or failed (the previous certificate stays).")
            .labelNames("result")
            .withoutExemplars()
            .build();
    private final CounterDataPoint applied = reloads.labelValues("applied");
    private final CounterDataPoint failed = reloads.labelValues("failed");
    private final AtomicLong notAfterMillis = new AtomicLong(-1);
    private final GaugeWithCallback expiry = GaugeWithCallback.builder()
            .name("kvcache_injector_tls_certificate_expiry_timestamp_seconds")
            .help("When the serving certificate expires, in seconds since the Unix epoch.")
            .callback(callback -> {
                long notAfter = notAfterMillis.get();
                if (notAfter >= 0) {
                    callback.call(notAfter / 1000.0);
                }
            })
            .build();

    /** The serving certificate is now {@code leaf}. */
    public void serving(X509Certificate leaf) {
        notAfterMillis.set(leaf.getNotAfter().getTime());
    }

    /** New material from the files was applied. */
    public void reloadApplied() {
        applied.inc();
    }

    /** Changed files could not be applied; the previous certificate stays. */
    public void reloadFailed() {
        failed.inc();
    }

    public long appliedCount() {
        return (long) applied.get();
    }

    public long failedCount() {
        return (long) failed.get();
    }

    @Override
    public void registerIn(PrometheusRegistry registry) {
        registry.register(reloads);
        registry.register(expiry);
    }
}
