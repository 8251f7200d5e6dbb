package io.kvcacheinjector.domain.cluster;

/** A status condition as read: {@code type}, {@code status} ({@code True}, {@code False}, {@code Unknown}), reason, message. */
public record Condition(String type, String status, String reason, String message) {
}
