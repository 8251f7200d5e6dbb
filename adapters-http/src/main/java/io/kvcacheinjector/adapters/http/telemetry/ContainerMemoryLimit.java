package io.kvcacheinjector.adapters.http.telemetry;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The container's memory limit, as its cgroup reports it: cgroup v2 {@code memory.max} under the cgroup root, else
 * cgroup v1 {@code memory/memory.limit_in_bytes}. Empty when the limit is unlimited ({@code max} in v2; in v1 the
 * kernel's "no limit", a value near {@code Long.MAX_VALUE}) or cannot be read. Read on every call (a scrape), so a
 * limit resized in place is seen.
 */
public final class ContainerMemoryLimit {
    /** Where a container sees its own cgroup. */
    public static final Path DEFAULT_ROOT = Path.of("/sys/fs/cgroup");
    /** cgroup v1 reports "no limit" as the largest page-aligned counter; anything from 2^62 bytes on is that. */
    private static final long V1_UNLIMITED_FROM = 1L << 62;

    private final Path root;

    public ContainerMemoryLimit(Path root) {
        this.root = Objects.requireNonNull(root, "root");
    }

    /** The limit in bytes, or empty when there is none or it cannot be read. */
    public OptionalLong bytes() {
        Path v2 = root.resolve("memory.max");
        if (Files.exists(v2)) {
            String text = read(v2);
            return text == null || text.equals("max") ? OptionalLong.empty() : parse(text);
        }
        String v1 = read(root.resolve("memory").resolve("memory.limit_in_bytes"));
        if (v1 == null) {
            return OptionalLong.empty();
        }
        OptionalLong limit = parse(v1);
        return limit.isPresent() && limit.getAsLong() >= V1_UNLIMITED_FROM ? OptionalLong.empty() : limit;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII).strip();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static OptionalLong parse(String text) {
        try {
            long value = Long.parseLong(text);
            return value > 0 ? OptionalLong.of(value) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
