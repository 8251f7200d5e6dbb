package io.kvcacheinjector.domain.kvcache;

/** How an engine receives its store configuration (recorded as {@code vehicle} in the injection record). */
public enum Vehicle {
    /** A projected {@code downwardAPI} file of the {@code client-config} annotation, plus its volume and mount. */
    FILE("file"),
    /** Environment variables alone. */
    ENVIRONMENT("environment");

    private final String id;

    Vehicle(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }
}
