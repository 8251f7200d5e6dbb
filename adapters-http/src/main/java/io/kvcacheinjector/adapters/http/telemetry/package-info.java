/**
 * What the webhook tells its operators: the JSON log lines ({@link
 * io.kvcacheinjector.adapters.http.telemetry.JsonLog}), the admission counter and duration histogram ({@link
 * io.kvcacheinjector.adapters.http.telemetry.AdmissionMetrics}), and the JVM, process and container-memory metrics
 * ({@link io.kvcacheinjector.adapters.http.telemetry.RuntimeMetrics}). Metrics are the Prometheus Java client's
 * types, registered per server and written by its text and OpenMetrics writers.
 */
package io.kvcacheinjector.adapters.http.telemetry;
