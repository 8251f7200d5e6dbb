package io.kvcacheinjector.ports.out;

import java.util.Map;
import java.util.Optional;

/**
 * What the CacheBlendEngine reconciler needs from the cluster: whether ServiceMonitors are served, the data of a
 * Secret it copies, and server-side apply of one child (one field manager, conflicts forced, so that a hand edit of a
 * field the controller sets is taken back).
 */
public interface EngineChildrenPort {

    /** Whether the API server serves {@code monitoring.coreos.com/v1} ServiceMonitors. */
    boolean serviceMonitorServed();

    /** The {@code data} (base64 values as stored) of Secret {@code namespace/name}; empty when it does not exist. */
    Optional<Map<String, String>> secretData(String namespace, String name);

    /**
     * Applies {@code child} (a whole object as plain JSON values) by server-side apply and returns the object as the
     * API server stored it, {@code status} included.
     *
     * @throws RuntimeException when the API server refuses or cannot be reached; the reconcile is retried
     */
    Map<String, Object> apply(Map<String, Object> child);
}
