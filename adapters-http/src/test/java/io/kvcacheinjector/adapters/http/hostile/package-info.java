/**
 * Hostile input over real HTTPS against the real {@code WebhookServer} and {@code AdmissionHandler}: bodies that are
 * truncated, nested, huge, not UTF-8, duplicate-keyed, wrong-typed or null-filled, and connections that lie about
 * their length, stall or disconnect. Each must get a 400/413 or a reviewed answer, never a 500 or a hang, and an
 * unreadable body must never reach a use case. The generated run with the real engines lives in
 * {@code app/src/test/java/io/kvcacheinjector/app/reliability}.
 */
package io.kvcacheinjector.adapters.http.hostile;
