/**
 * The Helidon SE HTTPS server: {@link io.kvcacheinjector.adapters.http.server.WebhookServer} routes the three
 * admission endpoints to the framework-neutral handler, serves health, readiness and metrics, applies rotated
 * certificates without a restart, and stops gracefully. Nothing outside this package touches Helidon.
 */
package io.kvcacheinjector.adapters.http.server;
