/**
 * Driving ports: the use cases the webhooks and the commands call (kvcache mutate, the freeze, CacheBlend mutate),
 * each taking a {@link io.kvcacheinjector.domain.pod.ReceivedPod} and returning a
 * {@link io.kvcacheinjector.domain.Decision}, and the CacheBlend settings of an install. Their implementations are the
 * application services of {@code io.kvcacheinjector.ports.service}.
 */
package io.kvcacheinjector.ports.in;
