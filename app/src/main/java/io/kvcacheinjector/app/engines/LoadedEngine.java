package io.kvcacheinjector.app.engines;

import io.kvcacheinjector.ports.spi.EngineInjector;
import java.nio.file.Path;
import java.util.List;

/**
 * One engine as it was loaded: the instance, its folder, the jars of that folder (its class path) and the jar that
 * holds its {@link EngineInjector} class.
 */
public record LoadedEngine(EngineInjector engine, Path folder, List<Path> jars, Path jar) {
    public LoadedEngine {
        jars = List.copyOf(jars);
    }

    /** {@code /app/engines/vllm (engines-vllm-0.1.0.jar)}, as errors name the engine. */
    public String origin() {
        return folder + " (" + jar.getFileName() + ")";
    }
}
