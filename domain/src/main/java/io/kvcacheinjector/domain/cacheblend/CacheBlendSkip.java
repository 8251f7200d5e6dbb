package io.kvcacheinjector.domain.cacheblend;

import io.kvcacheinjector.domain.ReasonCode;
import java.util.Objects;

/**
 * Why a labelled Pod is not injected (docs/reference/cacheblend-injection.md). By default it becomes a skip: the Pod is admitted with
 * only the skip-reason annotation and {@link #warning()} as its admission warning. Under the fail-closed switch it
 * becomes a refusal with {@link #message()}.
 *
 * @param code    a CacheBlend skip code
 * @param warning the admission warning: starts with the code, short (the API server may truncate long warnings),
 *                names what failed and the fix
 * @param message the one-paragraph refusal message: starts with the code, names what failed, says why it matters
 *                and ends with the fix
 */
public record CacheBlendSkip(ReasonCode code, String warning, String message) {
    public CacheBlendSkip {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(warning, "warning");
        Objects.requireNonNull(message, "message");
        if (code.kind() != ReasonCode.Kind.SKIP) {
            throw new IllegalArgumentException(code + " is not a CacheBlend skip code");
        }
        if (!warning.startsWith(code.id() + ": ") || !message.startsWith(code.id() + ": ")) {
            throw new IllegalArgumentException("a skip's warning and message start with its code");
        }
    }
}
