package io.kvcacheinjector.domain.kvcache;

import io.kvcacheinjector.domain.ReasonCode;

/**
 * A key an engine owns or must keep out of the target container (reference: docs/reference/flag-grammar.md).
 *
 * @param kind        a command-line flag (matched in every spelling the engine's grammar reads as it) or an
 *                    {@code env} name (matched exactly)
 * @param name        the canonical flag ({@code --kv-transfer-config}) or variable name
 * @param code        the refusal when it is found
 * @param consequence one clause for the message: what the container would do instead of using the cache
 */
public record WatchedKey(Kind kind, String name, ReasonCode code, String consequence) {
    public enum Kind { FLAG, ENV }

    public static WatchedKey flag(String name, ReasonCode code, String consequence) {
        return new WatchedKey(Kind.FLAG, name, code, consequence);
    }

    public static WatchedKey env(String name, ReasonCode code, String consequence) {
        return new WatchedKey(Kind.ENV, name, code, consequence);
    }
}
