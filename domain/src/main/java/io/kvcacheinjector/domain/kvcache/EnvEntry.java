package io.kvcacheinjector.domain.kvcache;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** One rendered environment variable: a literal value, or a {@code fieldRef} the kubelet resolves. */
public record EnvEntry(String name, Optional<String> value, Optional<String> fieldPath) {

    public static EnvEntry literal(String name, String value) {
        return new EnvEntry(name, Optional.of(value), Optional.empty());
    }

    public static EnvEntry fieldRef(String name, String fieldPath) {
        return new EnvEntry(name, Optional.empty(), Optional.of(fieldPath));
    }

    /** The Kubernetes {@code EnvVar} JSON: {@code {name, value}} or {@code {name, valueFrom: {fieldRef: {fieldPath}}}}. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        value.ifPresent(v -> m.put("value", v));
        fieldPath.ifPresent(p -> m.put("valueFrom", Map.of("fieldRef", Map.of("fieldPath", p))));
        return m;
    }
}
