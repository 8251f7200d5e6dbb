/**
 * Launch analysis: does an argument appended to a container's {@code args} reach the declared engine's parser?
 * Shared by every contract (kvcache and CacheBlend). Reference: launch-and-flags.md §1.
 */
package io.kvcacheinjector.domain.launch;
