/**
 * The desired state of a {@code CacheBlendEngine} as pure values (docs/reference/cacheblend-engine.md): the
 * defaults and validation of its spec ({@link io.kvcacheinjector.domain.cacheblend.engine.EngineSpecReader}), the
 * children the controller applies in order ({@link io.kvcacheinjector.domain.cacheblend.engine.EngineChildren}: RESP
 * auth Secret copy, DaemonSet, lookup and metrics Services, connection ConfigMap, ServiceMonitor) and the status it
 * reports ({@link io.kvcacheinjector.domain.cacheblend.engine.EngineStatus}). Children are plain JSON objects so
 * that the domain needs no Kubernetes model; the controller in adapters-k8s applies them as they are.
 */
package io.kvcacheinjector.domain.cacheblend.engine;
