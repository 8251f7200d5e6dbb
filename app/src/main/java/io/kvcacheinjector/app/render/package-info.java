/**
 * {@code kvcache-injector render-engine}: the objects the CacheBlendEngine controller would create for one
 * CacheBlendEngine, printed as YAML without a cluster.
 */
package io.kvcacheinjector.app.render;
