/**
 * What the AOT cache's training run ({@code aot-training}, run in the image build by deploy/Dockerfile, locally by
 * deploy/aot-cache.sh) needs besides the application itself: a stand-in for the Kubernetes API server on the loopback
 * address, so that the training takes the path {@code serve} takes in a cluster (fabric8's client and informers, the
 * JDK's HTTP client over TLS, the CacheBlendEngine controller) although an image build reaches no API server. Nothing
 * here is used by {@code serve} itself.
 */
package io.kvcacheinjector.app.training;
