package io.kvcacheinjector.adapters.k8s.file;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_DELETE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY;

import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.cluster.ConfigMapData;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cluster view of {@code --cluster DIR}: the objects written down in a directory of manifests.
 *
 * <p>{@link #open} loads every {@code *.yaml}, {@code *.yml} and {@code *.json} file under the directory
 * (recursively, multi-document; see {@link ClusterFileReader} for the rules) and fails with a
 * {@link ClusterFileException} naming the file when one is malformed. Once loaded the view is
 * {@link SyncState.Synced} and answers every lookup from memory: found or not found, never failed.
 *
 * <p>{@link #startWatching()} reloads the directory whenever a file under it changes. A reload that fails keeps the
 * last good view, logs the problem and reports it through {@link #lastReloadProblem()}; the next good reload
 * clears it.
 */
public final class FileClusterDirectory implements ClusterDirectoryPort, SettingsPort, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(FileClusterDirectory.class.getName());
    /** Changes arriving within this window are folded into one reload (an editor writes a file in several steps). */
    private static final long SETTLE_MILLIS = 150;

    private final Path root;
    private final String settingsNamespace;
    private volatile ClusterSnapshot snapshot;
    private volatile Optional<String> lastReloadProblem = Optional.empty();
    private final AtomicLong reloads = new AtomicLong();
    private WatchService watchService;
    private Thread watcher;
    private volatile boolean closed;

    private FileClusterDirectory(Path root, String settingsNamespace, ClusterSnapshot snapshot) {
        this.root = root;
        this.settingsNamespace = settingsNamespace;
        this.snapshot = snapshot;
    }

    /**
     * Builds what {@link #open} reads files with, on the thread that calls it, and reads nothing from disk: a command
     * that will open a directory once it has read its command line (inject) calls it beforehand on another thread,
     * so that building the YAML reader is not on its critical path.
     */
    public static void warmUp() {
        ClusterFileReader.warmUp();
    }

    /**
     * Loads the cluster directory {@code dir} (a single manifest file is accepted too). The settings Secret
     * {@code gpustack-settings} is read from {@code settingsNamespace}.
     *
     * @throws ClusterFileException when the directory is missing or a file is malformed (the message names it)
     */
    public static FileClusterDirectory open(Path dir, String settingsNamespace) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(settingsNamespace, "settingsNamespace");
        Path root = dir.toAbsolutePath().normalize();
        ClusterSnapshot loaded = ClusterFileReader.read(root, settingsNamespace);
        LOG.log(System.Logger.Level.INFO, "cluster directory {0}: {1} objects from {2} files",
                root, loaded.objectCount(), loaded.fileCount());
        return new FileClusterDirectory(root, settingsNamespace, loaded);
    }

    /** The directory (or file) this view reads. */
    public Path root() {
        return root;
    }

    /**
     * Reloads the view whenever a file under the directory is created, changed or deleted, on a daemon thread,
     * until {@link #close()}. Calling it again has no effect.
     */
    public synchronized void startWatching() {
        if (watcher != null || closed) {
            return;
        }
        try {
            watchService = root.getFileSystem().newWatchService();
            registerTree(Files.isDirectory(root) ? root : root.getParent());
        } catch (IOException e) {
            throw new ClusterFileException(root, "cannot watch cluster directory " + root + ": " + e.getMessage(), e);
        }
        watcher = Thread.ofPlatform().daemon().name("cluster-dir-watch").start(this::watchLoop);
    }

    /** Why the most recent reload failed (the view kept its previous content), or empty after a good reload. */
    public Optional<String> lastReloadProblem() {
        return lastReloadProblem;
    }

    /** How many reloads have been attempted since {@link #open}, good or bad. */
    public long reloadCount() {
        return reloads.get();
    }

    /** Reloads the directory now; on failure keeps the last good view and reports the problem. */
    public void reload() {
        try {
            ClusterSnapshot loaded = ClusterFileReader.read(root, settingsNamespace);
            snapshot = loaded;
            lastReloadProblem = Optional.empty();
            LOG.log(System.Logger.Level.INFO, "cluster directory {0} reloaded: {1} objects from {2} files",
                    root, loaded.objectCount(), loaded.fileCount());
        } catch (ClusterFileException e) {
            lastReloadProblem = Optional.of(e.getMessage());
            LOG.log(System.Logger.Level.WARNING, "cluster directory {0} not reloaded, keeping the last good view: {1}",
                    root, e.getMessage());
        } finally {
            reloads.incrementAndGet();
        }
    }

    @Override
    public void close() {
        Thread w;
        synchronized (this) {
            closed = true;
            w = watcher;
            if (watchService != null) {
                try {
                    watchService.close();
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.DEBUG, "closing the watch service", e);
                }
            }
        }
        if (w != null) {
            try {
                w.join(TimeUnit.SECONDS.toMillis(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public SyncState syncState() {
        return SyncState.synced();
    }

    @Override
    public Lookup<KvCachePoolBinding> binding(String namespace, String name) {
        return lookup(snapshot.bindings(), new ObjectKey(namespace, name));
    }

    @Override
    public Lookup<KvCachePool> pool(String name) {
        return lookup(snapshot.pools(), name);
    }

    @Override
    public Lookup<KvCacheBackend> backend(String name) {
        return lookup(snapshot.backends(), name);
    }

    @Override
    public Lookup<CacheBlendEngine> cacheBlendEngine(String namespace, String name) {
        return lookup(snapshot.cacheBlendEngines(), new ObjectKey(namespace, name));
    }

    @Override
    public Lookup<ConfigMapData> configMap(String namespace, String name) {
        return lookup(snapshot.configMaps(), new ObjectKey(namespace, name));
    }

    @Override
    public boolean kvCacheDtypeOwned() {
        return snapshot.dtypeOwned();
    }

    private static <K, V> Lookup<V> lookup(Map<K, V> objects, K key) {
        V value = objects.get(key);
        return value == null ? Lookup.notFound() : Lookup.found(value);
    }

    private void registerTree(Path dir) throws IOException {
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                // hidden directories are not read, but their changes matter: a mounted ConfigMap swaps ..data
                d.register(watchService, ENTRY_CREATE, ENTRY_DELETE, ENTRY_MODIFY);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private void watchLoop() {
        while (!closed) {
            try {
                WatchKey key = watchService.take();
                boolean changed = drain(key);
                // let a burst of writes settle, then reload once
                WatchKey more;
                while ((more = watchService.poll(SETTLE_MILLIS, TimeUnit.MILLISECONDS)) != null) {
                    changed |= drain(more);
                }
                if (changed && !closed) {
                    reload();
                }
            } catch (ClosedWatchServiceException e) {
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "cluster directory watch: " + e.getMessage(), e);
            }
        }
    }

    private boolean drain(WatchKey key) {
        boolean changed = false;
        Path dir = (Path) key.watchable();
        for (WatchEvent<?> event : key.pollEvents()) {
            changed = true;
            if (event.kind() == ENTRY_CREATE && event.context() instanceof Path name) {
                Path created = dir.resolve(name);
                if (Files.isDirectory(created)) {
                    try {
                        registerTree(created);
                    } catch (IOException e) {
                        LOG.log(System.Logger.Level.WARNING, "cannot watch new directory {0}: {1}", created,
                                e.getMessage());
                    }
                }
            }
        }
        key.reset();
        return changed;
    }
}
