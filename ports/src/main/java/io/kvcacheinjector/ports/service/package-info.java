/**
 * The application services: the implementations of the driving ports of {@code io.kvcacheinjector.ports.in}. The
 * kvcache injection ({@link io.kvcacheinjector.ports.service.KvCacheInjection}, one method per step of the documented
 * check order), the freeze ({@link io.kvcacheinjector.ports.service.KvCacheFreeze}) and the CacheBlend injection
 * ({@link io.kvcacheinjector.ports.service.CacheBlendInjection}). Each takes a
 * {@link io.kvcacheinjector.domain.pod.ReceivedPod} and returns a {@link io.kvcacheinjector.domain.Decision}; the
 * words of every answer live in the domain's message classes.
 */
package io.kvcacheinjector.ports.service;
