package io.kvcacheinjector.app;

import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.Engines;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.logging.Logger;

/** The one place engines are discovered: {@link ServiceLoader} over {@link EngineInjector}, validated by {@link Engines}. */
public final class EngineLoader {
    private static final Logger LOG = Logger.getLogger(EngineLoader.class.getName());

    private EngineLoader() {
    }

    /**
     * Loads every engine on the classpath.
     *
     * @throws IllegalStateException when an engine id is duplicated or a required engine is missing
     */
    public static Engines load() {
        List<EngineInjector> found = new ArrayList<>();
        for (ServiceLoader.Provider<EngineInjector> p : ServiceLoader.load(EngineInjector.class).stream().toList()) {
            EngineInjector e = p.get();
            found.add(e);
            LOG.fine(() -> "loaded engine " + e.id() + " (" + e.displayName() + ") from " + source(e.getClass()));
        }
        return Engines.of(found);
    }

    private static String source(Class<?> type) {
        var cs = type.getProtectionDomain().getCodeSource();
        return cs == null || cs.getLocation() == null ? "(unknown)" : cs.getLocation().toString();
    }
}
