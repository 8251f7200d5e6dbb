package io.kvcacheinjector.domain.cacheblend;

/**
 * The data key of the connection ConfigMap a Pod needs (decision C13): {@code lmcache.ai/pd-role: prefiller} selects
 * {@code kv-transfer-config-prefiller.json}, {@code decoder} selects {@code kv-transfer-config-decoder.json}, and
 * without the annotation the key is {@code kv-transfer-config.json}. Values are compared exactly.
 */
public final class ConnectionKey {
    private ConnectionKey() {
    }

    /** The outcome of reading {@code lmcache.ai/pd-role}. */
    public sealed interface Selection permits Selected, InvalidRole {
    }

    /** The key to read. */
    public record Selected(String key) implements Selection {
    }

    /** The annotation holds another value, as written. */
    public record InvalidRole(String value) implements Selection {
    }

    /**
     * @param pdRole the annotation's value, or {@code null} when the Pod does not carry it
     */
    public static Selection select(String pdRole) {
        if (pdRole == null) {
            return new Selected(CacheBlendKeys.CONNECTION_KEY);
        }
        return switch (pdRole) {
            case "prefiller" -> new Selected(CacheBlendKeys.CONNECTION_KEY_PREFILLER);
            case "decoder" -> new Selected(CacheBlendKeys.CONNECTION_KEY_DECODER);
            default -> new InvalidRole(pdRole);
        };
    }
}
