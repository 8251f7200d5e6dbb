package io.kvcacheinjector.domain.kvcache;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.pod.EnvVar;
import java.util.Locale;
import java.util.Set;

/**
 * A key an engine owns or must keep out of the target container (reference: docs/reference/flag-grammar.md).
 *
 * @param kind        a command-line flag (matched in every spelling the engine's grammar reads as it) or an
 *                    {@code env} name (matched exactly)
 * @param name        the canonical flag ({@code --kv-transfer-config}) or variable name
 * @param code        the refusal when it is found
 * @param consequence one clause for the message: what the container would do instead of using the cache
 * @param values      for a variable: the values that make the engine do that, compared ignoring case (an entry
 *                    set through {@code valueFrom} counts too, because admission cannot read it); empty: any
 *                    value, the variable's presence is enough. Always empty for a flag. Added in engine SPI 1.1.
 */
public record WatchedKey(Kind kind, String name, ReasonCode code, String consequence, Set<String> values) {
    public enum Kind { FLAG, ENV }

    public WatchedKey {
        values = values.stream().map(v -> v.toLowerCase(Locale.ROOT)).collect(java.util.stream.Collectors.toUnmodifiableSet());
        if (kind == Kind.FLAG && !values.isEmpty()) {
            throw new IllegalArgumentException("a watched flag is matched by its spelling, never by a value: " + name);
        }
    }

    /** A key whose presence alone counts (the SPI 1.0 form). */
    public WatchedKey(Kind kind, String name, ReasonCode code, String consequence) {
        this(kind, name, code, consequence, Set.of());
    }

    public static WatchedKey flag(String name, ReasonCode code, String consequence) {
        return new WatchedKey(Kind.FLAG, name, code, consequence);
    }

    public static WatchedKey env(String name, ReasonCode code, String consequence) {
        return new WatchedKey(Kind.ENV, name, code, consequence);
    }

    /** A variable that counts only with one of {@code values} (ignoring case) or through {@code valueFrom}. */
    public static WatchedKey envWithValues(String name, Set<String> values, ReasonCode code, String consequence) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("envWithValues needs at least one value: " + name);
        }
        return new WatchedKey(Kind.ENV, name, code, consequence, values);
    }

    /** Whether this {@code env} entry is this key as the engine reads it. */
    public boolean matches(EnvVar entry) {
        if (kind != Kind.ENV || !entry.name().equals(name)) {
            return false;
        }
        return values.isEmpty() || entry.valueFrom()
                || entry.value().map(v -> values.contains(v.toLowerCase(Locale.ROOT))).orElse(false);
    }

    /** How a message names the matching entry: {@code env X}, with its value when only some values count. */
    public String describe(EnvVar entry) {
        if (values.isEmpty()) {
            return "env " + name;
        }
        return entry.valueFrom() ? "env " + name + " through valueFrom (admission cannot read the value)"
                : "env " + name + "=" + io.kvcacheinjector.domain.text.MessageText.quote(entry.value().orElse(""));
    }
}
