package io.kvcacheinjector.app.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The built jar carries one Helidon manifest listing the metadata files of every Helidon module in it. With only one
 * module's list (what the shade plugin keeps unless told to append them), Helidon finds its metadata by opening the
 * whole jar as a zip file system at start, about a dozen times: 80 MB of garbage at every start, which made the Serial
 * collector grow the heap to its limit and kept idle {@code serve} at 220 MiB instead of 116 MiB
 * (docs/explanation/performance-log.md, "Levers"). Checked on the jar because the unit tests run from classes.
 */
class HelidonManifestE2E {
    private static final String MANIFEST = "META-INF/helidon/manifest";

    @Test
    void theJarsHelidonManifestListsTheMetadataOfEveryHelidonModule() throws IOException {
        Path jar = Path.of(System.getProperty("kvcache.e2e.jar", "target/kvcache-injector.jar")).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the built jar " + jar + " is missing; build it with bin/mvn -pl app -am"
                    + " package -DskipTests");
        }
        try (JarFile file = new JarFile(jar.toFile())) {
            JarEntry manifest = file.getJarEntry(MANIFEST);
            assertThat(manifest).as("%s in %s", MANIFEST, jar).isNotNull();
            List<String> listed;
            try (var in = file.getInputStream(manifest)) {
                listed = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                        .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
            }
            List<String> metadata = file.stream().map(JarEntry::getName)
                    .filter(n -> n.startsWith("META-INF/helidon/io.helidon.") && !n.endsWith("/")).toList();
            assertThat(metadata).as("Helidon metadata files in the jar").hasSizeGreaterThan(5);
            assertThat(listed).as("the files %s lists", MANIFEST).containsAll(metadata);
        }
    }
}
