package io.kvcacheinjector.ports.in;

import io.kvcacheinjector.domain.Decision;

/** Pod CREATE on {@code /cacheblend/mutate}: inject the CacheBlend plugin, skip visibly, or refuse. */
public interface CacheBlendMutateUseCase {
    Decision mutate(String requestNamespace, Object pod);
}
