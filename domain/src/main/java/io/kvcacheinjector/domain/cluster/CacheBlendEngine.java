package io.kvcacheinjector.domain.cluster;

import java.util.List;
import java.util.Optional;

/**
 * A namespaced {@code lmcache.lmcache.ai/v1alpha1} {@code CacheBlendEngine}, reduced to what the CacheBlend
 * webhook reads (after the upstream defaults are applied by the reader).
 *
 * @param payloadRepository  {@code spec.injection.payloadImage.repository}, empty when unset or empty
 * @param payloadTag         {@code spec.injection.payloadImage.tag}, default {@code latest}
 * @param payloadPullPolicy  {@code spec.injection.payloadImage.pullPolicy}, default {@code IfNotPresent}
 * @param imagePullSecrets   {@code spec.injection.imagePullSecrets[].name}
 * @param targetContainer    {@code spec.injection.targetContainer}, empty meaning the first container
 * @param cudagraph          {@code spec.injection.cudagraph}, default {@code eager}
 * @param hostIPC            {@code spec.hostIPC} as written (empty when unset)
 * @param pd                 whether {@code spec.pd} is set
 * @param nixlSideChannelPort {@code spec.pd.nixlSideChannelPort}, default 5558
 * @param imageTag           {@code spec.image.tag} of the engine itself, empty when unset (then the engine's
 *                           operator picks it, and no tag comparison is made)
 */
public record CacheBlendEngine(
        String namespace,
        String name,
        Optional<String> payloadRepository,
        String payloadTag,
        String payloadPullPolicy,
        List<String> imagePullSecrets,
        Optional<String> targetContainer,
        String cudagraph,
        Optional<Boolean> hostIPC,
        boolean pd,
        int nixlSideChannelPort,
        Optional<String> imageTag) {
    public CacheBlendEngine {
        imagePullSecrets = List.copyOf(imagePullSecrets);
        imageTag = imageTag == null ? Optional.empty() : imageTag;
    }

    /** An engine whose own image tag is not known. */
    public CacheBlendEngine(String namespace, String name, Optional<String> payloadRepository, String payloadTag,
                            String payloadPullPolicy, List<String> imagePullSecrets, Optional<String> targetContainer,
                            String cudagraph, Optional<Boolean> hostIPC, boolean pd, int nixlSideChannelPort) {
        this(namespace, name, payloadRepository, payloadTag, payloadPullPolicy, imagePullSecrets, targetContainer,
                cudagraph, hostIPC, pd, nixlSideChannelPort, Optional.empty());
    }
}
