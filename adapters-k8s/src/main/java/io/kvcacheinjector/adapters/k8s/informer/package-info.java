/**
 * The cluster view of a running webhook: fabric8 shared informers over the Bindings, pools, backends, CacheBlend
 * engines (unless the CacheBlend contract is disabled), their connection ConfigMaps and the settings Secret,
 * answering lookups from the cache with no API call, falling back to one live read on a miss, and refusing to
 * answer (a failed lookup, {@code cluster-not-ready}) until every informer has synced and while a dropped watch
 * resumes.
 */
package io.kvcacheinjector.adapters.k8s.informer;
