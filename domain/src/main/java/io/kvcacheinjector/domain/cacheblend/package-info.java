/**
 * The CacheBlend injection contract (reference: docs/reference/cacheblend-injection.md) as pure values and functions: the opt-in keys,
 * the engine reference, the prefill/decode key, the connection JSON check, the target container, the skip
 * messages and the JSON Patch of a full injection. The use case in {@code ports.in} reads the cluster and strings
 * these together in the evaluation order of docs/reference/cacheblend-injection.md.
 */
package io.kvcacheinjector.domain.cacheblend;
