/**
 * The {@code kvcache.gpustack.ai} contract: annotations, transport matching, the quota-ledger gate, what an
 * engine renders, and how a rendering becomes a JSON Patch. Reference: docs/reference/kvcache-contract.md.
 */
package io.kvcacheinjector.domain.kvcache;
