package io.kvcacheinjector.domain.cluster;

import java.util.List;
import java.util.Optional;

/**
 * A cluster-scoped {@code KVCacheBackend} as read.
 *
 * @param protocol            {@code spec.transport.protocol} in API spelling, empty when absent or empty
 * @param managedGroupProtocols one entry per {@code spec.connection.managed.members[]} group, in declaration order:
 *                            its {@code transport.protocol}, empty when absent or empty; an empty list when the
 *                            backend is not managed or has no groups
 */
public record KvCacheBackend(String name, Optional<String> protocol, List<Optional<String>> managedGroupProtocols) {
    public KvCacheBackend {
        managedGroupProtocols = List.copyOf(managedGroupProtocols);
    }
}
