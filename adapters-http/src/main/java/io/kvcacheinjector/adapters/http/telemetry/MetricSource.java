package io.kvcacheinjector.adapters.http.telemetry;

/** Something that appends metric families to a Prometheus text exposition. */
@FunctionalInterface
public interface MetricSource {
    /** Appends complete families ({@code # HELP}, {@code # TYPE} and samples) to {@code out}. */
    void appendTo(StringBuilder out);
}
