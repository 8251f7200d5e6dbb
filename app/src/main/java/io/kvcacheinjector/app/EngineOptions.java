package io.kvcacheinjector.app;

import io.kvcacheinjector.app.engines.EngineFolders;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code --engines-dir DIR[,DIR…]}, the same on every command: the folders whose subfolders hold one engine each
 * (docs/reference/cli.md). Without it, {@code engines/} beside the jar. Several folders (comma-separated, like Kafka
 * Connect's {@code plugin.path}) let the chart add engines in a volume beside the built-in ones.
 */
final class EngineOptions {
    static final String FLAG = "--engines-dir";

    private EngineOptions() {
    }

    static List<Path> folders(CliArgs cli) {
        List<Path> given = cli.list(FLAG).stream().map(Path::of).toList();
        if (cli.value(FLAG).isPresent() && given.isEmpty()) {
            throw new IllegalArgumentException(FLAG + " needs a folder (or several, comma-separated)");
        }
        return given.isEmpty() ? List.of(EngineFolders.defaultFolder()) : given;
    }
}
