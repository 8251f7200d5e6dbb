package io.kvcacheinjector.app.engines;

import java.util.List;

/**
 * The parent of every engine's class loader: it shows a plugin the JDK (through the platform class loader) and the
 * SPI packages of the application ({@code io.kvcacheinjector.domain} and {@code io.kvcacheinjector.ports.spi}, with
 * their subpackages), and nothing else: no framework of ours (Helidon, fabric8, Guice, Jackson), no other plugin, and
 * no resource of the application's class path. So a plugin runs with whatever versions of libraries it bundles, and
 * the SPI types it implements are the very types the application calls.
 */
final class SpiOnlyClassLoader extends ClassLoader {
    /** The packages a plugin may use, by name prefix. */
    static final List<String> SPI_PACKAGES = List.of("io.kvcacheinjector.domain.", "io.kvcacheinjector.ports.spi.");

    static {
        registerAsParallelCapable();
    }

    private final ClassLoader application;

    SpiOnlyClassLoader(ClassLoader application) {
        super("kvcache-engine-spi", ClassLoader.getPlatformClassLoader());
        this.application = application;
    }

    static boolean isSpi(String className) {
        for (String p : SPI_PACKAGES) {
            if (className.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (isSpi(name)) {
            return application.loadClass(name);
        }
        // the JDK, through the platform loader; anything else is not found, and the plugin's own loader looks in its jars
        return super.loadClass(name, resolve);
    }
}
