package io.kvcacheinjector.domain.cacheblend;

import io.kvcacheinjector.domain.cluster.ConfigMapData;
import io.kvcacheinjector.domain.json.Json;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code --kv-transfer-config} value taken from the engine's connection ConfigMap (decision C4). The string is
 * passed to vLLM verbatim, with its multi-line formatting, as one argument; it is parsed only to check that it is a
 * JSON object with a non-empty string {@code kv_connector}.
 *
 * @param text      the ConfigMap value, verbatim
 * @param connector the {@code kv_connector} it names
 */
public record ConnectionConfig(String text, String connector) {

    /** The outcome of checking one data key. */
    public sealed interface Reading permits Valid, Invalid {
    }

    public record Valid(ConnectionConfig config) implements Reading {
    }

    /**
     * The key cannot be used; {@code problem} is a clause that follows the key's name in a message, for example
     * {@code is absent} or {@code is not valid JSON}.
     */
    public record Invalid(String problem) implements Reading {
    }

    /** Checks {@code key} of the ConfigMap. */
    public static Reading read(ConfigMapData configMap, String key) {
        String text = configMap.data().get(key);
        if (text == null) {
            return new Invalid("is absent" + presentKeys(configMap));
        }
        if (text.isBlank()) {
            return new Invalid("is empty");
        }
        Optional<Object> parsed = Json.parse(text);
        if (parsed.isEmpty()) {
            return new Invalid("is not valid JSON");
        }
        if (!(parsed.get() instanceof Map<?, ?> object)) {
            return new Invalid("is JSON but not an object");
        }
        Object connector = object.get("kv_connector");
        if (connector == null) {
            return new Invalid("has no kv_connector");
        }
        if (!(connector instanceof String s) || s.isBlank()) {
            return new Invalid("has a kv_connector that is not a non-empty string");
        }
        return new Valid(new ConnectionConfig(text, s));
    }

    private static String presentKeys(ConfigMapData configMap) {
        if (configMap.data().isEmpty()) {
            return " (the ConfigMap has no data)";
        }
        return " (the ConfigMap has " + Quoting.quoteAll(configMap.data().keySet().stream().sorted().toList()) + ")";
    }
}
