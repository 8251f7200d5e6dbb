/**
 * {@code kvcache-injector bench} (its command, {@link io.kvcacheinjector.bench.BenchCommand}) and its machinery: the real webhook and a do-nothing baseline started side by side in one
 * process on the same Helidon HTTPS stack, driven by one closed-loop client over keep-alive TLS connections in
 * alternating rounds with the AdmissionReview bodies embedded under {@code io/kvcacheinjector/bench/}, and
 * the report (requests/s, latency percentiles, the real/baseline ratio, the in-memory decision time, readiness
 * and resident memory) as a table or JSON. Nothing here is used by {@code serve}.
 */
package io.kvcacheinjector.bench;
