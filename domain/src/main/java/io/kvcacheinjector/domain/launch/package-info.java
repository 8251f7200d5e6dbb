/**
 * Launch analysis: does an argument appended to a container's {@code args} reach the declared engine's parser?
 * {@link io.kvcacheinjector.domain.launch.LaunchAnalysis} strips transparent launchers, reads shells, scripts and
 * entry points and returns a {@link io.kvcacheinjector.domain.launch.LaunchResult};
 * {@link io.kvcacheinjector.domain.launch.LaunchMessages} turns a refusal into the text a Pod author reads. Shared by
 * every contract (kvcache and CacheBlend). Reference: docs/reference/launch-analysis.md.
 */
package io.kvcacheinjector.domain.launch;
