package io.kvcacheinjector.domain.cacheblend.engine;

import java.util.Map;
import java.util.Optional;

/**
 * What the rendering needs from the cluster beside the engine.
 *
 * @param serviceMonitorServed whether the API server serves {@code monitoring.coreos.com/v1} ServiceMonitors
 * @param respAuthData         the {@code data} of the RESP auth Secret the spec references, when it was read
 */
public record RenderContext(boolean serviceMonitorServed, Optional<Map<String, String>> respAuthData) {
    public RenderContext {
        respAuthData = respAuthData.map(Map::copyOf);
    }

    /** No ServiceMonitor CRD, no Secret read. */
    public static RenderContext offline() {
        return new RenderContext(false, Optional.empty());
    }
}
