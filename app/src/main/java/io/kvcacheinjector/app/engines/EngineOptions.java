package io.kvcacheinjector.app.engines;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * {@code --engines-dir DIR[,DIR…]}, the same on every command: the folders whose subfolders hold one engine each
 * (docs/reference/cli.md). Without it, {@code engines/} beside the jar. Several folders (comma-separated, like Kafka
 * Connect's {@code plugin.path}) let the chart add engines in a volume beside the built-in ones.
 */
public final class EngineOptions {
    public static final String FLAG = "--engines-dir";

    @Option(names = FLAG, paramLabel = "DIR[,DIR...]", description = "The engines folders, one subfolder per engine"
            + " (default: engines/ beside the jar).")
    public String value;

    /** The value as given. */
    public Optional<String> given() {
        return Optional.ofNullable(value);
    }

    public List<Path> folders() {
        List<Path> given = value == null ? List.of() : Arrays.stream(value.split(",")).filter(s -> !s.isBlank())
                .map(String::trim).distinct().map(Path::of).toList();
        if (value != null && given.isEmpty()) {
            throw new IllegalArgumentException(FLAG + " needs a folder (or several, comma-separated)");
        }
        return given.isEmpty() ? List.of(EngineFolders.defaultFolder()) : given;
    }
}
