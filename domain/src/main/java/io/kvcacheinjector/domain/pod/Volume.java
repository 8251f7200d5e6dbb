package io.kvcacheinjector.domain.pod;

/**
 * One Pod volume: its name and its source kind as the JSON key names it ({@code emptyDir}, {@code hostPath},
 * {@code downwardAPI}, …, or {@code unknown}).
 */
public record Volume(String name, String source) {
}
