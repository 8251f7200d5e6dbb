package io.kvcacheinjector.ports.in;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.pod.ReceivedPod;

/** Pod UPDATE on {@code /kvcache/validate}: the freeze of the label and the two written annotations. */
public interface KvCacheFreezeUseCase {
    Decision validate(String requestNamespace, ReceivedPod oldPod, ReceivedPod newPod);
}
