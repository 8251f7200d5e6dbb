package io.kvcacheinjector.ports.in;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.pod.ReceivedPod;

/** Pod CREATE on {@code /kvcache/mutate}: inject the Mooncake client configuration, or refuse. */
public interface KvCacheMutateUseCase {
    /**
     * @param requestNamespace the admission request's namespace (used when the object carries none)
     * @param pod              the Pod exactly as received
     */
    Decision mutate(String requestNamespace, ReceivedPod pod);
}
