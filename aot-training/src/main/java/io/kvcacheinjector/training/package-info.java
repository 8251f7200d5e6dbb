/**
 * {@code kvcache-injector aot-training}, the AOT cache's training run (run in the image build by deploy/Dockerfile,
 * locally by deploy/aot-cache.sh; {@link io.kvcacheinjector.training.AotTrainingCommand}): {@code serve} against
 * the stand-in API server of {@code io.kvcacheinjector.standin} with the example reviews through it, then
 * {@code bench} for a few seconds, so that the cache holds what {@code serve} loads in a cluster. Nothing here is used by
 * {@code serve} itself.
 */
package io.kvcacheinjector.training;
