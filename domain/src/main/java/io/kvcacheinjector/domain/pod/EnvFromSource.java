package io.kvcacheinjector.domain.pod;

/** One {@code envFrom} source: {@code kind} is {@code ConfigMap} or {@code Secret} (or {@code unknown}), with its name. */
public record EnvFromSource(String kind, String name) {
    /** How a message names it, for example {@code ConfigMap "model-env"}. */
    public String describe() {
        return kind + " \"" + name + "\"";
    }
}
