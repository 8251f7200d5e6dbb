package io.kvcacheinjector.app.engines;

import io.kvcacheinjector.ports.spi.Engines;
import java.nio.file.Path;
import java.util.List;

/**
 * The built-in engines, loaded from the distribution's engines folder ({@code app/target/engines}, which the build
 * fills before the tests) through the same loader as the jar, so every test of the application exercises the
 * drop-in path.
 */
public final class BuiltInEngines {
    /** {@code app/target/engines}. */
    public static final Path FOLDER = EngineFolders.defaultFolder();

    private static final Engines ENGINES = EngineFolders.load(List.of(FOLDER)).engines();

    private BuiltInEngines() {
    }

    public static Engines engines() {
        return ENGINES;
    }
}
