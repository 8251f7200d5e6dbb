package io.kvcacheinjector.ports.in;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.pod.ReceivedPod;

/** Pod CREATE on {@code /cacheblend/mutate}: inject the CacheBlend plugin, skip visibly, or refuse. */
public interface CacheBlendMutateUseCase {
    Decision mutate(String requestNamespace, ReceivedPod pod);
}
