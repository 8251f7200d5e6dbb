/** Golden-file tests of the CacheBlend contract, run with the real vLLM flag grammar. */
package io.kvcacheinjector.engines.vllm.cacheblend;
