package io.kvcacheinjector.bench;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The example cluster of {@code docs/examples/cluster/} (the Binding {@code team-a/chat} on the pool
 * {@code shared}, the Ascend pool {@code npu}, and the CacheBlend engine {@code team-a/cacheblend}), embedded in
 * the jar so that {@code bench} runs from the jar alone. A test keeps the copies equal to the docs.
 */
public final class ExampleCluster {
    /** The files, as named under {@code docs/examples/cluster/}. */
    public static final List<String> FILES = List.of("kvcache.yaml", "cacheblend.yaml");
    private static final String RESOURCES = "/io/kvcacheinjector/app/serve/warmup/cluster/";

    private ExampleCluster() {
    }

    /** The embedded text of {@code file} (one of {@link #FILES}). */
    public static byte[] read(String file) {
        String path = RESOURCES + file;
        try (InputStream in = ExampleCluster.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("the example cluster file " + path + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }

    /** The objects of the example cluster as JSON trees, for a stand-in API server to serve. */
    @SuppressWarnings("unchecked")
    public static List<Map<String, Object>> objects() throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        List<Map<String, Object>> objects = new ArrayList<>();
        for (String file : FILES) {
            try (MappingIterator<Object> docs = yaml.readerFor(Object.class).readValues(read(file))) {
                while (docs.hasNext()) {
                    if (docs.next() instanceof Map<?, ?> m) {
                        objects.add((Map<String, Object>) m);
                    }
                }
            }
        }
        return objects;
    }

    /** Writes the example cluster into the new temporary directory it returns. */
    public static Path writeToTemporaryDirectory() throws IOException {
        Path dir = Files.createTempDirectory("kvcache-injector-bench-cluster");
        for (String file : FILES) {
            Files.write(dir.resolve(file), read(file));
        }
        return dir;
    }

    /** Deletes a directory written by {@link #writeToTemporaryDirectory()}; quietly does nothing when it is gone. */
    public static void delete(Path dir) {
        for (String file : FILES) {
            try {
                Files.deleteIfExists(dir.resolve(file));
            } catch (IOException e) {
                // a temporary file left behind is not worth failing the run
            }
        }
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // idem
        }
    }
}
