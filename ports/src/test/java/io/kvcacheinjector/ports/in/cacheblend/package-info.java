/** Tests of the CacheBlend use case and its settings. */
package io.kvcacheinjector.ports.in.cacheblend;
