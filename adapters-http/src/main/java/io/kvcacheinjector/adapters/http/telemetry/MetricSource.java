package io.kvcacheinjector.adapters.http.telemetry;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

/** Something that puts metric families into the registry {@code /metrics} scrapes (the Prometheus Java client's). */
@FunctionalInterface
public interface MetricSource {
    /** Registers this source's collectors in {@code registry}; called once per server. */
    void registerIn(PrometheusRegistry registry);
}
