/**
 * The {@code kvcache.gpustack.ai} contract: annotations, transport matching, the quota-ledger gate, what an
 * engine renders, and how a rendering becomes a JSON Patch. Reference: kv-cache-pool.md.
 */
package io.kvcacheinjector.domain.kvcache;
