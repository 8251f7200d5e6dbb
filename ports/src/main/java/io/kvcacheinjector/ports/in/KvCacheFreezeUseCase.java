package io.kvcacheinjector.ports.in;

import io.kvcacheinjector.domain.Decision;

/** Pod UPDATE on {@code /kvcache/validate}: the freeze of the label and the two written annotations. */
public interface KvCacheFreezeUseCase {
    Decision validate(String requestNamespace, Object oldPod, Object newPod);
}
