/**
 * The HTTP adapter's framework-neutral core: {@link io.kvcacheinjector.adapters.http.AdmissionHandler} answers one
 * AdmissionReview (bytes and webhook in, {@link io.kvcacheinjector.adapters.http.AdmissionAnswer} out) by decoding
 * it, calling the use case behind the webhook and encoding the decision, and records the metric and the log line.
 * The Helidon server in {@code server} and the {@code review} command call it; neither adds behaviour of its own.
 */
package io.kvcacheinjector.adapters.http;
