package io.kvcacheinjector.adapters.http;

import io.kvcacheinjector.ports.in.CacheBlendMutateUseCase;
import io.kvcacheinjector.ports.in.KvCacheFreezeUseCase;
import io.kvcacheinjector.ports.in.KvCacheMutateUseCase;
import java.util.Objects;

/** The three use cases the webhooks drive, one per endpoint. */
public record AdmissionUseCases(KvCacheMutateUseCase kvCacheMutate, KvCacheFreezeUseCase kvCacheFreeze,
                                CacheBlendMutateUseCase cacheBlendMutate) {
    public AdmissionUseCases {
        Objects.requireNonNull(kvCacheMutate, "kvCacheMutate");
        Objects.requireNonNull(kvCacheFreeze, "kvCacheFreeze");
        Objects.requireNonNull(cacheBlendMutate, "cacheBlendMutate");
    }
}
