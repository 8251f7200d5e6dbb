package io.kvcacheinjector.domain.pod;

import java.util.Optional;

/**
 * One {@code env} entry of a container as read: its name, its literal value if any, and whether it is set
 * through {@code valueFrom}. {@code raw} is the entry exactly as received (a JSON map).
 */
public record EnvVar(String name, Optional<String> value, boolean valueFrom, Object raw) {
}
