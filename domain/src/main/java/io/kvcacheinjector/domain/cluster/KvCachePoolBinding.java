package io.kvcacheinjector.domain.cluster;

import java.util.Optional;

/**
 * A {@code worker.gpustack.ai/v1alpha1} {@code KVCachePoolBinding} as the webhook reads it.
 *
 * @param poolName   {@code spec.poolRef.name}, empty when absent or empty
 * @param domainName {@code spec.domain.name} as written (empty when absent); see {@link #domain()}
 * @param dtype      {@code spec.domain.dtype}, verbatim (empty when absent)
 * @param terminating whether {@code metadata.deletionTimestamp} is set
 */
public record KvCachePoolBinding(
        String namespace, String name, Optional<String> poolName, String domainName, String dtype, boolean terminating) {

    /** The reuse domain after D11: an absent or empty {@code spec.domain.name} is {@code default}. */
    public String domain() {
        return domainName == null || domainName.isEmpty() ? "default" : domainName;
    }
}
