/**
 * The CacheBlendEngine controller on the Java Operator SDK (docs/reference/cacheblend-engine.md): the reconciler
 * that hands each engine to the reconcile use case, the fabric8 port that server-side applies its children, and the
 * operator with leader election on a Lease that {@code serve --reconcile-cacheblend} starts.
 */
package io.kvcacheinjector.adapters.k8s.reconcile;
