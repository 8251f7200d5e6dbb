/**
 * The cluster view of {@code --cluster DIR}: Bindings, pools, backends, CacheBlend engines, ConfigMaps and the
 * settings Secret read from a directory of Kubernetes manifests (YAML or JSON, multi-document, recursively),
 * reloaded when the files change. It implements the same ports as the informer view, so every webhook behaviour
 * can be exercised offline with the objects written down as files.
 */
package io.kvcacheinjector.adapters.k8s.file;
