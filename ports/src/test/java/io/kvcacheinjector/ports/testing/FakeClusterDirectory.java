package io.kvcacheinjector.ports.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.cluster.ClusterObjects;
import io.kvcacheinjector.domain.cluster.ConfigMapData;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.NamespaceLabels;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * An in-memory cluster view for tests, loaded from Kubernetes JSON objects (one object or a {@code List}/array per
 * file) through {@link ClusterObjects}, like the real directories. It can be told to be unsynced or to fail reads.
 */
public final class FakeClusterDirectory implements ClusterDirectoryPort, SettingsPort {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Map<String, KvCachePoolBinding> bindings = new HashMap<>();
    private final Map<String, KvCachePool> pools = new HashMap<>();
    private final Map<String, KvCacheBackend> backends = new HashMap<>();
    private final Map<String, CacheBlendEngine> engines = new HashMap<>();
    private final Map<String, ConfigMapData> configMaps = new HashMap<>();
    private final Map<String, NamespaceLabels> namespaces = new HashMap<>();
    private boolean dtypeOwned = true;
    private Optional<String> notSynced = Optional.empty();
    private Optional<String> failing = Optional.empty();

    /** Loads every {@code *.json} file in {@code dir} (not recursive). */
    public static FakeClusterDirectory load(Path dir) {
        FakeClusterDirectory d = new FakeClusterDirectory();
        if (!Files.isDirectory(dir)) {
            return d;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                Object tree = JSON.readValue(f.toFile(), Object.class);
                d.addTree(tree);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return d;
    }

    @SuppressWarnings("unchecked")
    private void addTree(Object tree) {
        if (tree instanceof List<?> l) {
            l.forEach(this::addTree);
        } else if (tree instanceof Map<?, ?> m) {
            Map<String, Object> o = (Map<String, Object>) m;
            if ("List".equals(o.get("kind")) && o.get("items") instanceof List<?> items) {
                items.forEach(this::addTree);
            } else {
                add(o);
            }
        }
    }

    /** Adds one Kubernetes object. */
    public FakeClusterDirectory add(Map<String, Object> o) {
        String kind = ClusterObjects.kind(o).orElse("");
        String name = ClusterObjects.name(o).orElse("");
        String ns = ClusterObjects.namespace(o).orElse("default");
        switch (kind) {
            case "KVCachePoolBinding" -> bindings.put(ns + "/" + name, ClusterObjects.binding(o, ns));
            case "KVCachePool" -> pools.put(name, ClusterObjects.pool(o));
            case "KVCacheBackend" -> backends.put(name, ClusterObjects.backend(o));
            case "CacheBlendEngine" -> engines.put(ns + "/" + name, ClusterObjects.cacheBlendEngine(o, ns));
            case "ConfigMap" -> configMaps.put(ns + "/" + name, ClusterObjects.configMap(o, ns));
            case "Namespace" -> namespaces.put(name, ClusterObjects.namespaceLabels(o));
            case "Secret" -> {
                if (ClusterObjects.SETTINGS_SECRET.equals(name)) {
                    dtypeOwned = ClusterObjects.dtypeOwned(o);
                }
            }
            default -> throw new IllegalArgumentException("unexpected kind in test cluster: " + kind);
        }
        return this;
    }

    /** Makes the view report that it has not synced. */
    public FakeClusterDirectory notSynced(String reason) {
        this.notSynced = Optional.of(reason);
        return this;
    }

    /** Makes every lookup fail with {@code reason}. */
    public FakeClusterDirectory failing(String reason) {
        this.failing = Optional.of(reason);
        return this;
    }

    public FakeClusterDirectory dtypeOwned(boolean owned) {
        this.dtypeOwned = owned;
        return this;
    }

    @Override
    public SyncState syncState() {
        return notSynced.<SyncState>map(SyncState.NotSynced::new).orElse(SyncState.synced());
    }

    private <T> Lookup<T> get(Map<String, T> map, String key) {
        if (failing.isPresent()) {
            return Lookup.failed(failing.get());
        }
        T v = map.get(key);
        return v == null ? Lookup.notFound() : Lookup.found(v);
    }

    @Override
    public Lookup<KvCachePoolBinding> binding(String namespace, String name) {
        return get(bindings, namespace + "/" + name);
    }

    @Override
    public Lookup<KvCachePool> pool(String name) {
        return get(pools, name);
    }

    @Override
    public Lookup<KvCacheBackend> backend(String name) {
        return get(backends, name);
    }

    @Override
    public Lookup<NamespaceLabels> namespace(String name) {
        return get(namespaces, name);
    }

    @Override
    public Lookup<CacheBlendEngine> cacheBlendEngine(String namespace, String name) {
        return get(engines, namespace + "/" + name);
    }

    @Override
    public Lookup<ConfigMapData> configMap(String namespace, String name) {
        return get(configMaps, namespace + "/" + name);
    }

    @Override
    public boolean kvCacheDtypeOwned() {
        return dtypeOwned;
    }
}
