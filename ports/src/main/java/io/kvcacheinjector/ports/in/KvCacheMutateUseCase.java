package io.kvcacheinjector.ports.in;

import io.kvcacheinjector.domain.Decision;

/** Pod CREATE on {@code /kvcache/mutate}: inject the Mooncake client configuration, or refuse. */
public interface KvCacheMutateUseCase {
    /**
     * @param requestNamespace the admission request's namespace (used when the object carries none)
     * @param pod              the Pod exactly as received, as a JSON tree (maps, lists, scalars)
     */
    Decision mutate(String requestNamespace, Object pod);
}
