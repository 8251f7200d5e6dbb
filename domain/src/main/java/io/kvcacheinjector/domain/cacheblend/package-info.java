/**
 * The CacheBlend injection contract (reference: cacheblend.md §9) as pure values and functions: the opt-in keys,
 * the engine reference, the prefill/decode key, the connection JSON check, the target container, the skip
 * messages and the JSON Patch of a full injection. The use case in {@code ports.in} reads the cluster and strings
 * these together in the evaluation order of §9.3.
 */
package io.kvcacheinjector.domain.cacheblend;
