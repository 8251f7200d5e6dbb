/**
 * What the webhook tells its operators: the JSON log lines ({@link
 * io.kvcacheinjector.adapters.http.telemetry.JsonLog}), the admission counter and duration histogram ({@link
 * io.kvcacheinjector.adapters.http.telemetry.AdmissionMetrics}), JVM basics, and the hand-written Prometheus text
 * exposition they share. No metrics library is involved.
 */
package io.kvcacheinjector.adapters.http.telemetry;
