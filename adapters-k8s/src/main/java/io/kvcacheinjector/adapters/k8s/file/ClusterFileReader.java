package io.kvcacheinjector.adapters.k8s.file;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import io.kvcacheinjector.adapters.k8s.model.SettingsSecret;
import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.cluster.ClusterObjects;
import io.kvcacheinjector.domain.cluster.ConfigMapData;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a cluster directory into a {@link ClusterSnapshot}: every {@code *.yaml}, {@code *.yml} and {@code *.json}
 * file under the root, recursively and in path order, each holding one or more documents (YAML {@code ---}
 * separated, or concatenated JSON), each document one object or a {@code kind: List} of objects.
 *
 * <p>Entries whose name starts with {@code .} are skipped (editor swap files, and the {@code ..data} links of a
 * mounted ConfigMap, whose files are also reachable under their plain names). Objects of other kinds are ignored;
 * Secrets other than the settings Secret are not kept. A namespaced object without a namespace is in
 * {@code default}, as {@code kubectl apply} would put it.
 */
final class ClusterFileReader {
    private static final ObjectReader YAML = new ObjectMapper(new YAMLFactory()).readerFor(Object.class);
    private static final ObjectReader JSON = new ObjectMapper().readerFor(Object.class);

    private final String settingsNamespace;
    private final Map<ObjectKey, KvCachePoolBinding> bindings = new HashMap<>();
    private final Map<String, KvCachePool> pools = new HashMap<>();
    private final Map<String, KvCacheBackend> backends = new HashMap<>();
    private final Map<ObjectKey, CacheBlendEngine> engines = new HashMap<>();
    private final Map<ObjectKey, ConfigMapData> configMaps = new HashMap<>();
    private final Map<String, String> definedAt = new HashMap<>();
    private Optional<Map<String, Object>> settingsSecret = Optional.empty();

    private ClusterFileReader(String settingsNamespace) {
        this.settingsNamespace = settingsNamespace;
    }

    /** Builds the readers and reads one small in-memory manifest with each (see {@link FileClusterDirectory#warmUp}). */
    static void warmUp() {
        try {
            YAML.readValue("kind: ConfigMap\nmetadata: {name: a, namespace: b}\ndata: {k: v}\n");
            JSON.readValue("{\"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"}}");
        } catch (IOException | RuntimeException e) {
            // only a warm-up: a real file meets the same problem, if any, and names itself
        }
    }

    /** Loads {@code root} (a directory, or a single manifest file). */
    static ClusterSnapshot read(Path root, String settingsNamespace) {
        ClusterFileReader reader = new ClusterFileReader(settingsNamespace);
        List<Path> files = manifests(root);
        for (Path file : files) {
            reader.readFile(file);
        }
        return new ClusterSnapshot(reader.bindings, reader.pools, reader.backends, reader.engines, reader.configMaps,
                reader.dtypeOwned(), files.size());
    }

    static boolean isManifest(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return !name.startsWith(".") && (name.endsWith(".yaml") || name.endsWith(".yml") || name.endsWith(".json"));
    }

    private static List<Path> manifests(Path root) {
        if (!Files.exists(root)) {
            throw new ClusterFileException(root, "cluster directory " + root + " does not exist; pass --cluster a "
                    + "directory of Kubernetes manifests (YAML or JSON)");
        }
        if (Files.isRegularFile(root)) {
            return List.of(root);
        }
        List<Path> files = new ArrayList<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    return !dir.equals(root) && dir.getFileName().toString().startsWith(".")
                            ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    // attrs describe the link itself for a symlink; follow it (a mounted ConfigMap is all links)
                    if (isManifest(file) && Files.isRegularFile(file)) {
                        files.add(file);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new ClusterFileException(root, "cannot list cluster directory " + root + ": " + e.getMessage(), e);
        }
        files.sort(null);
        return files;
    }

    private void readFile(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException | UncheckedIOException e) {
            throw new ClusterFileException(file, "cannot read cluster file " + file + ": " + e.getMessage(), e);
        }
        boolean json = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json");
        int index = 0;
        try (MappingIterator<Object> docs = (json ? JSON : YAML).readValues(text)) {
            while (docs.hasNextValue()) {
                Object doc = docs.nextValue();
                index++;
                if (doc != null) {
                    accept(file, index, doc);
                }
            }
        } catch (JacksonException e) {
            throw new ClusterFileException(file, "cluster file " + file + " is not valid " + (json ? "JSON" : "YAML")
                    + where(e.getLocation()) + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ClusterFileException(file, "cannot read cluster file " + file + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (e.getCause() instanceof JacksonException j) {
                throw new ClusterFileException(file, "cluster file " + file + " is not valid " + (json ? "JSON" : "YAML")
                        + where(j.getLocation()) + ": " + j.getOriginalMessage(), e);
            }
            throw e;
        }
    }

    private static String where(JsonLocation location) {
        return location == null || location.getLineNr() < 1 ? ""
                : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    @SuppressWarnings("unchecked")
    private void accept(Path file, int index, Object doc) {
        String at = "cluster file " + file + ", document " + index;
        if (!(doc instanceof Map<?, ?> raw)) {
            throw new ClusterFileException(file, at + " is not a Kubernetes object (a mapping with apiVersion, kind "
                    + "and metadata); found a " + (doc instanceof List<?> ? "list" : "scalar"));
        }
        Map<String, Object> object = (Map<String, Object>) raw;
        Optional<String> kind = ClusterObjects.kind(object);
        if (kind.isEmpty() || kind.get().isEmpty()) {
            throw new ClusterFileException(file, at + " has no kind; every document must be a Kubernetes object "
                    + "(apiVersion, kind, metadata)");
        }
        if (object.get("items") instanceof List<?> items && kind.get().endsWith("List")) {
            int item = 0;
            for (Object o : items) {
                item++;
                if (o != null) {
                    acceptObject(file, at + ", item " + item, o);
                }
            }
            return;
        }
        acceptObject(file, at, object);
    }

    @SuppressWarnings("unchecked")
    private void acceptObject(Path file, String at, Object o) {
        if (!(o instanceof Map<?, ?>)) {
            throw new ClusterFileException(file, at + " is not a Kubernetes object");
        }
        Map<String, Object> object = (Map<String, Object>) o;
        String kindName = ClusterObjects.kind(object).orElse("");
        Optional<ClusterKind> known = ClusterKind.ofKind(kindName);
        if (known.isEmpty() || known.get() == ClusterKind.NAMESPACE) {
            return; // other kinds (Deployments, Pods, Namespaces, ...) are not part of the file-backed view
        }
        ClusterKind kind = known.get();
        String apiVersion = object.get("apiVersion") instanceof String s ? s : "";
        if (!kind.groupMatches(apiVersion)) {
            throw new ClusterFileException(file, at + ": " + kind.kind() + " has apiVersion '" + apiVersion
                    + "'; the webhook reads " + kind.kind() + " from " + kind.apiVersion() + " (set apiVersion: "
                    + kind.apiVersion() + ")");
        }
        Optional<String> name = ClusterObjects.name(object);
        if (name.isEmpty()) {
            throw new ClusterFileException(file, at + ": " + kind.kind() + " has no metadata.name");
        }
        String namespace = kind.namespaced() ? ClusterObjects.namespace(object).orElse("default") : "";
        if (kind == ClusterKind.SECRET) {
            if (name.get().equals(ClusterObjects.SETTINGS_SECRET) && namespace.equals(settingsNamespace)) {
                define(file, at, kind, namespace, name.get());
                settingsSecret = Optional.of(object);
            }
            return;
        }
        define(file, at, kind, namespace, name.get());
        ObjectKey key = new ObjectKey(namespace, name.get());
        switch (kind) {
            case KV_CACHE_POOL_BINDING -> bindings.put(key, ClusterObjects.binding(object, namespace));
            case KV_CACHE_POOL -> pools.put(name.get(), ClusterObjects.pool(object));
            case KV_CACHE_BACKEND -> backends.put(name.get(), ClusterObjects.backend(object));
            case CACHE_BLEND_ENGINE -> engines.put(key, ClusterObjects.cacheBlendEngine(object, namespace));
            case CONFIG_MAP -> configMaps.put(key, ClusterObjects.configMap(object, namespace));
            case SECRET, NAMESPACE -> throw new IllegalStateException("handled above");
        }
    }

    private void define(Path file, String at, ClusterKind kind, String namespace, String name) {
        String id = kind.kind() + " " + (namespace.isEmpty() ? name : namespace + "/" + name);
        String where = file + " (" + at.substring(at.indexOf(", document") + 2) + ")";
        String previous = definedAt.putIfAbsent(id, where);
        if (previous != null) {
            throw new ClusterFileException(file, at + ": " + id + " is already defined in " + previous
                    + "; each object may appear once");
        }
    }

    private boolean dtypeOwned() {
        return settingsSecret.map(secret -> SettingsSecret.dtypeOwned(secret,
                settingsNamespace + "/" + ClusterObjects.SETTINGS_SECRET)).orElse(true);
    }
}
