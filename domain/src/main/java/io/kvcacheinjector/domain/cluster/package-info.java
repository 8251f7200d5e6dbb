/** The cluster objects the webhooks read (Bindings, pools, backends, CacheBlend engines, ConfigMaps), as records. */
package io.kvcacheinjector.domain.cluster;
