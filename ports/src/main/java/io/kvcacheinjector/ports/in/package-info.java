/**
 * Driving ports (use cases) and their implementations: the kvcache injection, the freeze and the CacheBlend
 * injection. Each takes a Pod exactly as received (a JSON tree) and returns a
 * {@link io.kvcacheinjector.domain.Decision}.
 */
package io.kvcacheinjector.ports.in;
