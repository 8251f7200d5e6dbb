package io.kvcacheinjector.domain.cluster;

import java.util.List;
import java.util.Optional;

/**
 * A cluster-scoped {@code KVCachePool} as read.
 *
 * @param backends       {@code spec.backends}
 * @param clientEndpoint {@code status.clientEndpoint}, empty when absent
 * @param quotaLedger    the {@code QuotaLedgerAvailable} condition, if published
 */
public record KvCachePool(String name, List<String> backends, String clientEndpoint, Optional<Condition> quotaLedger) {
    public KvCachePool {
        backends = List.copyOf(backends);
    }
}
