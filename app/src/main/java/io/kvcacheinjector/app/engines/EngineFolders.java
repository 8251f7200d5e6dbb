package io.kvcacheinjector.app.engines;

import io.kvcacheinjector.ports.spi.EngineCapability;
import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.EnginePlugin;
import io.kvcacheinjector.ports.spi.Engines;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;

/**
 * The one way engines arrive: engines folders, each holding one subfolder per engine, named by the engine's id, with
 * that engine's jars (docs/reference/engine-spi.md). Each subfolder gets a class loader of its own whose parent shows
 * only the SPI ({@link SpiOnlyClassLoader}); a single {@link ServiceLoader} call per subfolder finds the engine its
 * jars register. Anything that would leave the webhook without a working, unambiguous set of engines stops start-up
 * with an {@link EngineLoadException} naming the folder or jar and the fix.
 */
public final class EngineFolders {
    /** The folder name beside the application jar. */
    public static final String DEFAULT_FOLDER = "engines";

    private EngineFolders() {
    }

    /** The engines and where each came from, in load order (folders in the order given, subfolders by name). */
    public record Loaded(Engines engines, List<LoadedEngine> details) {
        public Loaded {
            details = List.copyOf(details);
        }
    }

    /**
     * {@code engines/} beside the application jar ({@code /app/engines} in the image, {@code app/target/engines} after
     * {@code bin/mvn package}); when the application runs from a class folder ({@code app/target/classes}), beside that
     * folder, which is the same {@code app/target/engines}.
     */
    public static Path defaultFolder() {
        CodeSource source = EngineFolders.class.getProtectionDomain().getCodeSource();
        try {
            if (source != null && source.getLocation() != null) {
                Path location = Path.of(source.getLocation().toURI());
                Path parent = location.toAbsolutePath().getParent();
                if (parent != null) {
                    return parent.resolve(DEFAULT_FOLDER);
                }
            }
        } catch (URISyntaxException | IllegalArgumentException e) {
            // fall through: the working directory's engines/
        }
        return Path.of(DEFAULT_FOLDER).toAbsolutePath();
    }

    /**
     * Loads every engine of {@code folders}.
     *
     * @throws EngineLoadException when a folder is missing or holds no engine, a jar cannot be loaded, a plugin was
     *                             built against another SPI, or two engines share an id or annotation values
     */
    public static Loaded load(List<Path> folders) {
        Map.Entry<List<Path>, CompletableFuture<Loaded>> started = early;
        if (started != null && started.getKey().equals(folders)) {
            early = null;
            try {
                return started.getValue().join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                if (e.getCause() instanceof Error r) {
                    throw r;
                }
                throw e;
            }
        }
        return loadNow(folders);
    }

    /** A load started by {@link #loadInBackground}, taken by the next {@link #load} of the same folders. */
    private static volatile Map.Entry<List<Path>, CompletableFuture<Loaded>> early;

    /**
     * Starts loading {@code folders} on a daemon thread; the next {@link #load} of the same folders waits for it and
     * returns its result or throws its exception. For the one-shot commands, whose command line is read meanwhile.
     */
    public static void loadInBackground(List<Path> folders) {
        List<Path> copy = List.copyOf(folders);
        CompletableFuture<Loaded> result = new CompletableFuture<>();
        early = Map.entry(copy, result);
        Thread.ofPlatform().daemon().name("engines").start(() -> {
            try {
                result.complete(loadNow(copy));
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        });
    }

    private static Loaded loadNow(List<Path> folders) {
        if (folders.isEmpty()) {
            throw new EngineLoadException("no engines folder is given; pass --engines-dir DIR, the folder that holds one subfolder per engine");
        }
        SpiOnlyClassLoader spi = new SpiOnlyClassLoader(EngineFolders.class.getClassLoader());
        List<LoadedEngine> loaded = new ArrayList<>();
        for (Path folder : folders) {
            List<Path> subfolders = subfolders(folder);
            for (Path sub : subfolders) {
                loaded.add(loadOne(sub, spi));
            }
        }
        Map<EngineInjector, LoadedEngine> byEngine = new IdentityHashMap<>();
        loaded.forEach(l -> byEngine.put(l.engine(), l));
        Engines engines;
        try {
            engines = Engines.of(loaded.stream().map(LoadedEngine::engine).toList(), e -> byEngine.get(e).origin());
        } catch (IllegalStateException e) {
            throw new EngineLoadException(e.getMessage(), e);
        }
        return new Loaded(engines, loaded);
    }

    private static List<Path> subfolders(Path folder) {
        if (!Files.isDirectory(folder)) {
            throw new EngineLoadException("engines folder " + folder.toAbsolutePath() + " does not exist"
                    + (Files.exists(folder) ? " as a folder" : "") + "; pass --engines-dir with the folder that holds one"
                    + " subfolder per engine (the distribution has " + DEFAULT_FOLDER + "/ beside kvcache-injector.jar)");
        }
        List<Path> subfolders = new ArrayList<>();
        try (Stream<Path> entries = Files.list(folder)) {
            for (Path p : entries.sorted(Comparator.comparing(p -> p.getFileName().toString())).toList()) {
                String name = p.getFileName().toString();
                if (name.startsWith(".")) {
                    continue; // ..data and friends of a mounted volume, editor files
                }
                if (!Files.isDirectory(p)) {
                    throw new EngineLoadException("engines folder " + folder.toAbsolutePath() + " holds the file " + name
                            + ", but every engine goes in a subfolder of its own named by its id; move it to "
                            + folder.toAbsolutePath() + "/<engine id>/, or remove it");
                }
                subfolders.add(p);
            }
        } catch (IOException e) {
            throw new EngineLoadException("cannot list engines folder " + folder.toAbsolutePath() + " ("
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + "); make it readable", e);
        }
        if (subfolders.isEmpty()) {
            throw new EngineLoadException("engines folder " + folder.toAbsolutePath() + " holds no engine; put each"
                    + " engine's jars in a subfolder named by its id (the distribution ships vllm/, vllm-ascend/ and"
                    + " sglang/), or pass --engines-dir with the folder that has them");
        }
        return subfolders;
    }

    private static LoadedEngine loadOne(Path folder, SpiOnlyClassLoader spi) {
        Path where = folder.toAbsolutePath();
        List<Path> jars;
        try (Stream<Path> entries = Files.list(folder)) {
            jars = entries.filter(p -> p.getFileName().toString().endsWith(".jar") && Files.isRegularFile(p))
                    .sorted(Comparator.comparing(p -> p.getFileName().toString())).toList();
        } catch (IOException e) {
            throw new EngineLoadException("cannot list engine folder " + where + " (" + e.getClass().getSimpleName()
                    + ": " + e.getMessage() + "); make it readable", e);
        }
        if (jars.isEmpty()) {
            throw new EngineLoadException("engine folder " + where + " holds no jar; put the engine's jars in it, or remove the folder");
        }
        URL[] urls = new URL[jars.size()];
        for (int i = 0; i < urls.length; i++) {
            try {
                urls[i] = jars.get(i).toUri().toURL();
            } catch (MalformedURLException e) {
                throw new EngineLoadException("cannot use " + jars.get(i) + " as a class path entry; rename it", e);
            }
        }
        URLClassLoader loader = new URLClassLoader("engine-" + folder.getFileName(), urls, spi);
        List<ServiceLoader.Provider<EngineInjector>> providers;
        try {
            providers = ServiceLoader.load(EngineInjector.class, loader).stream().toList();
        } catch (ServiceConfigurationError | LinkageError e) {
            throw new EngineLoadException("a jar in engine folder " + where + " cannot be loaded: " + oneLine(e)
                    + "; rebuild the engine against this webhook's SPI " + EngineInjector.SPI_VERSION
                    + " (its classes may use only io.kvcacheinjector.domain, io.kvcacheinjector.ports.spi, the JDK and the jars of its own folder)", e);
        }
        if (providers.isEmpty()) {
            throw new EngineLoadException("engine folder " + where + " holds no engine: none of its jars ("
                    + names(jars) + ") registers " + EngineInjector.class.getName()
                    + " in META-INF/services; add the engine's jar, or remove the folder");
        }
        if (providers.size() > 1) {
            throw new EngineLoadException("engine folder " + where + " holds " + providers.size() + " engines ("
                    + String.join(", ", providers.stream().map(p -> p.type().getName()).toList())
                    + "); put each engine in a folder of its own");
        }
        ServiceLoader.Provider<EngineInjector> provider = providers.get(0);
        Path jar = jarOf(provider.type(), where);
        checkSpiVersion(provider.type(), jar);
        EngineInjector engine;
        try {
            engine = provider.get();
        } catch (ServiceConfigurationError | LinkageError | RuntimeException e) {
            throw new EngineLoadException("the engine in " + jar + " cannot be created: " + oneLine(e)
                    + "; fix or rebuild the engine", e);
        }
        String id;
        try {
            id = engine.id();
            engine.selector();
            engine.entryPoint();
        } catch (LinkageError | RuntimeException e) {
            throw new EngineLoadException("the engine in " + jar + " cannot describe itself: " + oneLine(e)
                    + "; rebuild the engine against this webhook's SPI " + EngineInjector.SPI_VERSION, e);
        }
        String name = folder.getFileName().toString();
        if (!name.equals(id)) {
            throw new EngineLoadException("engine folder " + where + " holds the engine \"" + id + "\" (" + jar.getFileName()
                    + "); rename the folder to " + id + ", since each engine's folder is named by its id");
        }
        return new LoadedEngine(engine, where, jars, jar);
    }

    /**
     * The SPI version the plugin was built against must have this webhook's major version, and a minor version no
     * newer than this webhook's (it may call default methods added since).
     */
    private static void checkSpiVersion(Class<? extends EngineInjector> type, Path jar) {
        EnginePlugin plugin = type.getAnnotation(EnginePlugin.class);
        String ours = EngineInjector.SPI_VERSION;
        if (plugin == null) {
            throw new EngineLoadException("the engine " + type.getName() + " in " + jar + " does not say which engine SPI"
                    + " it was built against; annotate it @EnginePlugin(spiVersion = EngineInjector.SPI_VERSION) and"
                    + " rebuild it against SPI " + ours);
        }
        String theirs = plugin.spiVersion();
        int[] t = parse(theirs);
        int[] o = parse(ours);
        if (t == null || t[0] != o[0] || t[1] > o[1]) {
            throw new EngineLoadException("the engine " + type.getName() + " in " + jar + " was built against engine SPI "
                    + theirs + ", and this webhook provides SPI " + ours + (t != null && t[0] == o[0]
                    ? " (older than the plugin's)" : "") + "; rebuild the engine against SPI " + ours
                    + ", or run a webhook release that provides SPI " + theirs);
        }
    }

    /** The SPI version the engine was built against, as its {@link EnginePlugin} says. */
    public static String spiVersionOf(LoadedEngine loaded) {
        EnginePlugin plugin = loaded.engine().getClass().getAnnotation(EnginePlugin.class);
        return plugin == null ? "" : plugin.spiVersion();
    }

    /**
     * The CacheBlend contract needs the engine that declares {@link EngineCapability#CACHEBLEND}; without one, start-up
     * stops unless the contract is disabled.
     */
    public static void requireCacheBlendEngine(Loaded loaded, List<Path> folders, boolean contractEnabled) {
        if (contractEnabled && loaded.engines().withCapability(EngineCapability.CACHEBLEND).isEmpty()) {
            throw new EngineLoadException("no engine in " + String.join(", ", folders.stream()
                    .map(f -> f.toAbsolutePath().toString()).toList()) + " supports CacheBlend (capability "
                    + EngineCapability.CACHEBLEND + "; the built-in vllm engine has it), so no CacheBlend Pod could be"
                    + " injected; put the vllm engine folder back, or start with --disable-cacheblend");
        }
    }

    private static int[] parse(String version) {
        String[] parts = version == null ? new String[0] : version.split("\\.");
        if (parts.length != 2) {
            return null;
        }
        try {
            return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Path jarOf(Class<?> type, Path folder) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        try {
            if (source != null && source.getLocation() != null) {
                return Path.of(source.getLocation().toURI());
            }
        } catch (URISyntaxException | IllegalArgumentException e) {
            // the folder then stands for the jar
        }
        return folder;
    }

    private static String names(List<Path> jars) {
        return String.join(", ", jars.stream().map(j -> j.getFileName().toString()).toList());
    }

    private static String oneLine(Throwable e) {
        String m = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        Throwable c = e.getCause();
        if (c != null && c != e) {
            m += " (" + c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage()) + ")";
        }
        return m.replaceAll("\\s+", " ").trim();
    }
}
