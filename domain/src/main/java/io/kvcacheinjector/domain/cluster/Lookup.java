package io.kvcacheinjector.domain.cluster;

import java.util.Objects;

/** The result of reading one object from the cluster view. A failure is a value, never an exception. */
public sealed interface Lookup<T> permits Lookup.Found, Lookup.NotFound, Lookup.Failed {
    /** The object exists. */
    record Found<T>(T value) implements Lookup<T> {
        public Found {
            Objects.requireNonNull(value, "value");
        }
    }

    /** The object does not exist. */
    record NotFound<T>() implements Lookup<T> {
    }

    /**
     * The object could not be read for a reason other than not-found: the view has not synced, lost its
     * watch, or a live read failed. {@code reason} is one clause for a message (no stack trace).
     */
    record Failed<T>(String reason) implements Lookup<T> {
        public Failed {
            Objects.requireNonNull(reason, "reason");
        }
    }

    static <T> Lookup<T> found(T value) {
        return new Found<>(value);
    }

    static <T> Lookup<T> notFound() {
        return new NotFound<>();
    }

    static <T> Lookup<T> failed(String reason) {
        return new Failed<>(reason);
    }
}
