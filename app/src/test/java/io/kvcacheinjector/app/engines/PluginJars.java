package io.kvcacheinjector.app.engines;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Builds engine plugin jars during the tests, as a plugin author's build would: the example engine of
 * {@code app/src/test/engine-fixtures/} is compiled against the SPI on the test class path ({@code domain},
 * {@code ports}) with the JDK's compiler and packed with its {@code META-INF/services} line. Variants change one line
 * of the source (another id, another SPI version, no {@code @EnginePlugin}).
 */
public final class PluginJars {
    /** The example engine's source, kept out of every Maven module. */
    public static final Path EXAMPLE_SOURCE = Path.of("src", "test", "engine-fixtures", "example", "io", "kvcacheinjector",
            "engines", "example", "ExampleEngine.java");
    static final String SERVICE = "META-INF/services/io.kvcacheinjector.ports.spi.EngineInjector";
    static final String EXAMPLE_CLASS = "io.kvcacheinjector.engines.example.ExampleEngine";

    private PluginJars() {
    }

    /** The example engine as written. */
    public static Path example(Path workDir) {
        return build(workDir, "example", source(), true);
    }

    /** The example engine as if built against engine SPI {@code version} (its {@code @EnginePlugin} says so). */
    public static Path exampleBuiltAgainst(Path workDir, String version) {
        return build(workDir, "example-spi-" + version, source().replace(
                "@EnginePlugin(spiVersion = EngineInjector.SPI_VERSION)", "@EnginePlugin(spiVersion = \"" + version + "\")"), true);
    }

    /** The example engine with another id and engine value (a second, distinct engine). */
    public static Path exampleWithId(Path workDir, String id, String engineValue) {
        return build(workDir, "example-" + id, source().replace("return \"example\";", "return \"" + id + "\";")
                .replace("EngineSelector.engine(\"Example\")", "EngineSelector.engine(\"" + engineValue + "\")"), true);
    }

    /** The example engine without {@code @EnginePlugin}. */
    public static Path exampleWithoutSpiVersion(Path workDir) {
        return build(workDir, "example-unmarked", source().replace("@EnginePlugin(spiVersion = EngineInjector.SPI_VERSION)\n", ""), true);
    }

    /** The example engine's classes without the {@code META-INF/services} registration. */
    public static Path exampleUnregistered(Path workDir) {
        return build(workDir, "example-unregistered", source(), false);
    }

    private static String source() {
        try {
            return Files.readString(EXAMPLE_SOURCE);
        } catch (IOException e) {
            throw new UncheckedIOException("the example engine's source " + EXAMPLE_SOURCE.toAbsolutePath(), e);
        }
    }

    private static Path build(Path workDir, String name, String source, boolean register) {
        try {
            Path src = workDir.resolve(name + "-src/io/kvcacheinjector/engines/example/ExampleEngine.java");
            Path classes = workDir.resolve(name + "-classes");
            Files.createDirectories(src.getParent());
            Files.createDirectories(classes);
            Files.writeString(src, source);
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            StringWriter diagnostics = new StringWriter();
            boolean ok = javac.getTask(diagnostics, null, null,
                    List.of("--release", "21", "-classpath", testClasspath(), "-d", classes.toString()),
                    null, javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(src.toFile()))
                    .call();
            if (!ok) {
                throw new IllegalStateException("the example engine does not compile:\n" + diagnostics);
            }
            Path jar = workDir.resolve(name + ".jar");
            Manifest manifest = new Manifest();
            manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
            manifest.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_VERSION, "1.0.0-test");
            try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
                List<Path> files = new ArrayList<>();
                try (Stream<Path> walk = Files.walk(classes)) {
                    walk.filter(Files::isRegularFile).sorted().forEach(files::add);
                }
                for (Path f : files) {
                    out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                    out.write(Files.readAllBytes(f));
                    out.closeEntry();
                }
                if (register) {
                    out.putNextEntry(new JarEntry(SERVICE));
                    out.write((EXAMPLE_CLASS + "\n").getBytes(StandardCharsets.UTF_8));
                    out.closeEntry();
                }
            }
            return jar;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The class path the tests run with (surefire puts it in {@code surefire.test.class.path}). */
    public static String testClasspath() {
        String surefire = System.getProperty("surefire.test.class.path", "");
        return surefire.isBlank() ? System.getProperty("java.class.path") : surefire;
    }

    /** {@code folder} made to hold a copy of each built-in engine folder, except those named in {@code without}. */
    public static Path builtInsInto(Path folder, String... without) {
        try {
            Files.createDirectories(folder);
            try (Stream<Path> engines = Files.list(BuiltInEngines.FOLDER)) {
                for (Path engine : engines.toList()) {
                    String id = engine.getFileName().toString();
                    if (!List.of(without).contains(id)) {
                        copyTree(engine, folder.resolve(id));
                    }
                }
            }
            return folder;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Copies a file, or a folder with everything in it. */
    public static void copyTree(Path source, Path target) throws IOException {
        if (!Files.isDirectory(source)) {
            Files.createDirectories(target.toAbsolutePath().getParent());
            Files.copy(source, target);
            return;
        }
        try (Stream<Path> walk = Files.walk(source)) {
            for (Path p : walk.toList()) {
                Path t = target.resolve(source.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }

    /** Puts {@code jar} into {@code engines/<id>/}. */
    public static void drop(Path jar, Path engines, String id) {
        try {
            Path target = Files.createDirectories(engines.resolve(id));
            Files.copy(jar, target.resolve(jar.getFileName().toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
