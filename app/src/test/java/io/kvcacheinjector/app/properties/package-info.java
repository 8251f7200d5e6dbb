/**
 * Property-based tests (jqwik) of the two mutating use cases, wired as the server wires them, over generated Pods and
 * generated cluster states: every patch applies cleanly to the Pod as received, touches only the paths its contract
 * names, yields a Pod the fabric8 model decodes, and records what it wrote; a refusal never carries a patch; deciding
 * never modifies the received object; the same review always gets the same bytes. The generators live beside the
 * properties ({@code KvCachePods}, {@code KvCacheCluster}, {@code CacheBlendPods}, {@code CacheBlendCluster}); the
 * number of tries comes from {@link io.kvcacheinjector.app.properties.PropertyTries}.
 */
package io.kvcacheinjector.app.properties;
