/**
 * A stand-in for the Kubernetes API server on the loopback address, holding the example cluster, so that
 * {@code aot-training} in an image build (which reaches no API server) and {@code bench --serve-process --informers} take the
 * path {@code serve} takes in a cluster: fabric8's client and informers, the JDK's HTTP client over TLS, the
 * CacheBlendEngine controller. A package of its own because both commands use it; nothing here is used by
 * {@code serve} itself.
 */
package io.kvcacheinjector.standin;
