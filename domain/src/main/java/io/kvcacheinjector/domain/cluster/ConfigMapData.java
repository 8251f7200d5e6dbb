package io.kvcacheinjector.domain.cluster;

import java.util.Map;

/** A ConfigMap's {@code data} as read. */
public record ConfigMapData(String namespace, String name, Map<String, String> data) {
    public ConfigMapData {
        data = Map.copyOf(data);
    }
}
