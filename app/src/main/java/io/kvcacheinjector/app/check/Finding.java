package io.kvcacheinjector.app.check;

import java.util.Objects;

/**
 * One problem {@code check} found.
 *
 * @param code    the stable code (docs/reference/check.md)
 * @param object  the object involved, as {@code Kind namespace/name} (or {@code Kind name} when cluster-scoped)
 * @param message what is wrong, one clause or sentence, naming the object
 * @param fix     what to do, as an imperative
 */
public record Finding(FindingCode code, String object, String message, String fix) {
    public Finding {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(object, "object");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(fix, "fix");
    }

    public Severity severity() {
        return code.severity();
    }
}
