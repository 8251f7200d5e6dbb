package io.kvcacheinjector.domain;

import java.util.Objects;

/** An admission warning: the Pod is admitted, and {@link #message()} (starting with the code) tells its author a caveat. */
public record Warning(ReasonCode code, String message) {
    public Warning {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(message, "message");
        if (code.kind() != ReasonCode.Kind.WARNING) {
            throw new IllegalArgumentException(code + " is not a warning code");
        }
    }
}
