/**
 * The Kubernetes side of the webhook: the cluster view the use cases read ({@code ports.out.ClusterDirectoryPort}
 * and {@code SettingsPort}), backed either by fabric8 shared informers ({@code informer}) or by a directory of
 * manifests ({@code file}), and the wire model of the custom resources it reads ({@code model}). Both views map
 * objects to the domain records through {@code domain.cluster.ClusterObjects}, so the field paths live in one place.
 * {@code CacheBlendContract} says whether a view serves the CacheBlend contract at all ({@code --disable-cacheblend}).
 */
package io.kvcacheinjector.adapters.k8s;
