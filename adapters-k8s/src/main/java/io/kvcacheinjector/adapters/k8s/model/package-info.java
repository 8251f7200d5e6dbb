/**
 * The wire model of the custom resources the webhook reads: {@code worker.gpustack.ai/v1alpha1}
 * {@code KVCachePoolBinding} (namespaced), {@code KVCachePool} and {@code KVCacheBackend} (cluster-scoped), and
 * {@code lmcache.lmcache.ai/v1alpha1} {@code CacheBlendEngine} (namespaced), as fabric8 custom resources. The
 * classes type the fields the webhook reads (docs/reference/kvcache-contract.md, docs/reference/cacheblend-injection.md) and keep every other field in
 * {@code additionalProperties}, so an object written by the upstream operators round-trips unchanged.
 */
package io.kvcacheinjector.adapters.k8s.model;
