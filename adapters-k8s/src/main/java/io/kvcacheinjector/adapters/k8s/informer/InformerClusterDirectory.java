package io.kvcacheinjector.adapters.k8s.informer;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kvcacheinjector.adapters.k8s.CacheBlendContract;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import io.kvcacheinjector.adapters.k8s.model.SettingsSecret;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

/**
 * The cluster view of a running webhook, backed by fabric8 shared informers (D7).
 *
 * <p>Informers watch {@code KVCachePoolBinding} and {@code CacheBlendEngine} in all namespaces,
 * {@code KVCachePool} and {@code KVCacheBackend} (cluster-scoped), and the one Secret {@code gpustack-settings} in
 * the settings namespace (by name, so RBAC can be limited to it). For ConfigMaps the view watches exactly the
 * connection ConfigMap {@code <engine>-connection} of each {@code CacheBlendEngine} it knows, by name in the
 * engine's namespace, starting and stopping those informers as engines come and go: no label marks these
 * ConfigMaps upstream, and watching every ConfigMap in the cluster would hold all of them in memory. With CacheBlend
 * it also watches Namespaces, for the Pod Security warning only: that informer is not part of readiness, and a
 * namespace it has not listed gives no warning.
 *
 * <p>A lookup is answered from the cache with no API call. A cache miss (a Binding created a moment ago) falls
 * back to one live read, bounded by {@code liveReadTimeout}. The view is {@link SyncState.Synced} only once every
 * informer has listed and while every watch is open; until then, and while a dropped watch resumes (the informers
 * retry forever, also when a CRD is missing), every lookup answers {@link Lookup.Failed} with the reason, and the
 * use case refuses with {@code cluster-not-ready}. While the {@code CacheBlendEngine} CRD is not installed, the
 * reason names it, and the fix for clusters that do not use CacheBlend.
 *
 * <p>Started with {@link CacheBlendContract#DISABLED} ({@code --disable-cacheblend}), the view watches neither
 * CacheBlendEngines nor ConfigMaps, its readiness depends on the kvcache kinds and the settings Secret only, and every
 * CacheBlend lookup answers {@link Lookup.Failed} with {@link CacheBlendContract#DISABLED_REASON}.
 */
public final class InformerClusterDirectory implements ClusterDirectoryPort, SettingsPort, AutoCloseable {
    /** The bound on one live read after a cache miss; the admission itself has ten seconds. */
    public static final Duration DEFAULT_LIVE_READ_TIMEOUT = Duration.ofSeconds(3);
    private static final System.Logger LOG = System.getLogger(InformerClusterDirectory.class.getName());
    private static final String CONNECTION_SUFFIX = "-connection";

    private final KubernetesClient client;
    private final String settingsNamespace;
    private final Duration liveReadTimeout;
    private final CacheBlendContract cacheBlend;
    private final WatchedKind<KvCachePoolBinding> bindings;
    private final WatchedKind<KvCachePool> pools;
    private final WatchedKind<KvCacheBackend> backends;
    /** Empty when the CacheBlend contract is disabled. */
    private final Optional<WatchedKind<CacheBlendEngine>> engines;
    /** Namespaces, for the Pod Security warning of CacheBlend; not part of readiness. Empty without CacheBlend. */
    private final Optional<WatchedKind<NamespaceLabels>> namespaces;
    private final WatchedKind<Boolean> settings;
    private final List<WatchedKind<?>> primary;
    private final Map<String, WatchedKind<ConfigMapData>> connections = new ConcurrentHashMap<>();
    private final ExecutorService liveReads = Executors.newVirtualThreadPerTaskExecutor();
    private volatile boolean closed;
    private final InformerEvents events;

    private InformerClusterDirectory(KubernetesClient client, String settingsNamespace, Duration liveReadTimeout,
            CacheBlendContract cacheBlend, InformerEvents events) {
        this.client = client;
        this.events = events;
        this.settingsNamespace = settingsNamespace;
        this.liveReadTimeout = liveReadTimeout;
        this.cacheBlend = cacheBlend;
        this.bindings = anyNamespace(ClusterKind.KV_CACHE_POOL_BINDING, ClusterObjects::binding);
        this.pools = anyNamespace(ClusterKind.KV_CACHE_POOL, (o, ns) -> ClusterObjects.pool(o));
        this.backends = anyNamespace(ClusterKind.KV_CACHE_BACKEND, (o, ns) -> ClusterObjects.backend(o));
        this.engines = cacheBlend.enabled()
                ? Optional.of(anyNamespace(ClusterKind.CACHE_BLEND_ENGINE, ClusterObjects::cacheBlendEngine))
                : Optional.empty();
        this.namespaces = cacheBlend.enabled()
                ? Optional.of(anyNamespace(ClusterKind.NAMESPACE, (o, ns) -> ClusterObjects.namespaceLabels(o)))
                : Optional.empty();
        this.settings = named(ClusterKind.SECRET, settingsNamespace, ClusterObjects.SETTINGS_SECRET,
                (o, ns) -> SettingsSecret.dtypeOwned(o, settingsNamespace + "/" + ClusterObjects.SETTINGS_SECRET));
        List<WatchedKind<?>> watched = new ArrayList<>(List.of(bindings, pools, backends));
        engines.ifPresent(watched::add);
        watched.add(settings);
        this.primary = List.copyOf(watched);
        engines.ifPresent(this::followConnections);
    }

    /** Starts and stops the informer of each engine's connection ConfigMap as engines come and go. */
    private void followConnections(WatchedKind<CacheBlendEngine> engines) {
        engines.informer().addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(GenericKubernetesResource engine) {
                watchConnection(engine.getMetadata().getNamespace(), engine.getMetadata().getName());
            }

            @Override
            public void onUpdate(GenericKubernetesResource oldEngine, GenericKubernetesResource engine) {
                watchConnection(engine.getMetadata().getNamespace(), engine.getMetadata().getName());
            }

            @Override
            public void onDelete(GenericKubernetesResource engine, boolean deletedFinalStateUnknown) {
                WatchedKind<ConfigMapData> gone = connections.remove(
                        connectionKey(engine.getMetadata().getNamespace(), engine.getMetadata().getName()));
                if (gone != null) {
                    gone.close();
                }
            }
        });
    }

    /**
     * Starts the informers and returns at once; the view becomes {@link SyncState.Synced} when all have listed
     * (see {@link #awaitSynced}). The Secret {@code gpustack-settings} is watched in {@code settingsNamespace}.
     */
    public static InformerClusterDirectory start(KubernetesClient client, String settingsNamespace) {
        return start(client, settingsNamespace, DEFAULT_LIVE_READ_TIMEOUT);
    }

    /** As {@link #start(KubernetesClient, String)}, with the bound on one live read after a cache miss. */
    public static InformerClusterDirectory start(KubernetesClient client, String settingsNamespace,
            Duration liveReadTimeout) {
        return start(client, settingsNamespace, liveReadTimeout, CacheBlendContract.ENABLED);
    }

    /**
     * As {@link #start(KubernetesClient, String)}, serving the CacheBlend contract or not: with
     * {@link CacheBlendContract#DISABLED} no CacheBlendEngine or ConfigMap is watched (the CRD need not exist).
     */
    public static InformerClusterDirectory start(KubernetesClient client, String settingsNamespace,
            CacheBlendContract cacheBlend) {
        return start(client, settingsNamespace, DEFAULT_LIVE_READ_TIMEOUT, cacheBlend);
    }

    /** As {@link #start(KubernetesClient, String, CacheBlendContract)}, with the bound on one live read. */
    public static InformerClusterDirectory start(KubernetesClient client, String settingsNamespace,
            Duration liveReadTimeout, CacheBlendContract cacheBlend) {
        return start(client, settingsNamespace, liveReadTimeout, cacheBlend, InformerEvents.systemLogger());
    }

    /**
     * As {@link #start(KubernetesClient, String, Duration, CacheBlendContract)}, telling {@code events} when an
     * informer starts failing (a missing CRD, a lost API server) and when it works again, once per change.
     */
    public static InformerClusterDirectory start(KubernetesClient client, String settingsNamespace,
            Duration liveReadTimeout, CacheBlendContract cacheBlend, InformerEvents events) {
        Objects.requireNonNull(events, "events");
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(settingsNamespace, "settingsNamespace");
        Objects.requireNonNull(liveReadTimeout, "liveReadTimeout");
        Objects.requireNonNull(cacheBlend, "cacheBlend");
        InformerClusterDirectory directory = new InformerClusterDirectory(client, settingsNamespace, liveReadTimeout,
                cacheBlend, events);
        directory.primary.forEach(WatchedKind::start);
        directory.namespaces.ifPresent(WatchedKind::start);
        LOG.log(System.Logger.Level.INFO, "cluster view starting: informers on {0}, settings from {1}/{2}",
                cacheBlend.enabled()
                        ? "KVCachePoolBinding, KVCachePool, KVCacheBackend, CacheBlendEngine,"
                                + " <engine>-connection ConfigMaps, Namespaces"
                        : "KVCachePoolBinding, KVCachePool, KVCacheBackend (CacheBlend contract disabled)",
                settingsNamespace, ClusterObjects.SETTINGS_SECRET);
        return directory;
    }

    /** Whether this view serves the CacheBlend contract. */
    public CacheBlendContract cacheBlendContract() {
        return cacheBlend;
    }

    /** Waits up to {@code timeout} for the view to sync; true when it has. */
    public boolean awaitSynced(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        while (!(syncState() instanceof SyncState.Synced)) {
            if (System.nanoTime() > end || closed) {
                return false;
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    @Override
    public SyncState syncState() {
        if (closed) {
            return new SyncState.NotSynced("the cluster view is closed");
        }
        for (WatchedKind<?> kind : primary) {
            SyncState state = kind.state();
            if (state instanceof SyncState.NotSynced) {
                return state;
            }
        }
        return SyncState.synced();
    }

    @Override
    public Lookup<KvCachePoolBinding> binding(String namespace, String name) {
        return lookup(bindings, namespace, name);
    }

    @Override
    public Lookup<KvCachePool> pool(String name) {
        return lookup(pools, "", name);
    }

    @Override
    public Lookup<KvCacheBackend> backend(String name) {
        return lookup(backends, "", name);
    }

    @Override
    public Lookup<CacheBlendEngine> cacheBlendEngine(String namespace, String name) {
        return engines.isPresent() ? lookup(engines.get(), namespace, name) : Lookup.failed(
                CacheBlendContract.DISABLED_REASON);
    }

    /**
     * A ConfigMap: from the cache when it is the connection ConfigMap of a known engine and its informer has
     * synced, otherwise by a live read (only the view's read permission on ConfigMaps applies). With the CacheBlend
     * contract disabled, no ConfigMap is read: the only ConfigMaps this view reads are CacheBlend connections.
     */
    @Override
    public Lookup<ConfigMapData> configMap(String namespace, String name) {
        if (!cacheBlend.enabled()) {
            return Lookup.failed(CacheBlendContract.DISABLED_REASON);
        }
        if (!(syncState() instanceof SyncState.NotSynced notSynced)) {
            WatchedKind<ConfigMapData> watched = connections.get(namespace + "/" + name);
            if (watched != null && watched.ready()) {
                Optional<ConfigMapData> hit = watched.cached(namespace, name);
                if (hit.isPresent()) {
                    return Lookup.found(hit.get());
                }
            }
            return liveRead(ClusterKind.CONFIG_MAP, namespace, name, ClusterObjects::configMap);
        }
        return notReady(notSynced, ClusterKind.CONFIG_MAP, namespace, name);
    }

    /**
     * A Namespace from the cache, with no live read: the answer only decides an advisory warning, so a namespace the
     * informer has not listed (or cannot list: no RBAC on namespaces) is not found, and no warning is given.
     */
    @Override
    public Lookup<NamespaceLabels> namespace(String name) {
        return namespaces.filter(WatchedKind::ready).flatMap(w -> w.cached("", name))
                .<Lookup<NamespaceLabels>>map(Lookup::found).orElseGet(Lookup::notFound);
    }

    /** The dtype Setting: on unless the settings Secret turns it off (also on while the view has not synced). */
    @Override
    public boolean kvCacheDtypeOwned() {
        return settings.cached(settingsNamespace, ClusterObjects.SETTINGS_SECRET).orElse(Boolean.TRUE);
    }

    @Override
    public void close() {
        closed = true;
        primary.forEach(WatchedKind::close);
        namespaces.ifPresent(WatchedKind::close);
        connections.values().forEach(WatchedKind::close);
        connections.clear();
        liveReads.shutdownNow();
    }

    private <R> Lookup<R> lookup(WatchedKind<R> watched, String namespace, String name) {
        if (syncState() instanceof SyncState.NotSynced notSynced) {
            return notReady(notSynced, watched.kind(), namespace, name);
        }
        Optional<R> hit = watched.cached(namespace, name);
        if (hit.isPresent()) {
            return Lookup.found(hit.get());
        }
        return liveRead(watched.kind(), namespace, name, watched::mapTree);
    }

    private static <R> Lookup<R> notReady(SyncState.NotSynced state, ClusterKind kind, String namespace, String name) {
        return Lookup.failed("cannot read " + describe(kind, namespace, name) + ": the cluster view is not ready ("
                + state.reason() + ")");
    }

    private <R> Lookup<R> liveRead(ClusterKind kind, String namespace, String name,
            BiFunction<Map<String, Object>, String, R> mapping) {
        Future<GenericKubernetesResource> read;
        try {
            read = liveReads.submit(() -> {
                var resources = client.genericKubernetesResources(WatchedKind.context(kind));
                return kind.namespaced()
                        ? resources.inNamespace(namespace).withName(name).get()
                        : resources.withName(name).get();
            });
        } catch (RejectedExecutionException e) {
            return Lookup.failed("cannot read " + describe(kind, namespace, name) + ": the cluster view is closed");
        }
        try {
            GenericKubernetesResource object = read.get(liveReadTimeout.toMillis(), TimeUnit.MILLISECONDS);
            if (object == null) {
                return Lookup.notFound();
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> tree = client.getKubernetesSerialization().convertValue(object, Map.class);
            return Lookup.found(mapping.apply(tree, namespace));
        } catch (TimeoutException e) {
            read.cancel(true);
            return Lookup.failed("the live read of " + describe(kind, namespace, name) + " after a cache miss timed out after "
                    + liveReadTimeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            return Lookup.failed("the live read of " + describe(kind, namespace, name) + " after a cache miss failed: "
                    + WatchedKind.describe(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Lookup.failed("the live read of " + describe(kind, namespace, name) + " was interrupted");
        }
    }

    private static String describe(ClusterKind kind, String namespace, String name) {
        return kind.kind() + " " + (kind.namespaced() ? namespace + "/" + name : name);
    }

    private void watchConnection(String engineNamespace, String engineName) {
        String configMap = engineName + CONNECTION_SUFFIX;
        String key = connectionKey(engineNamespace, engineName);
        if (closed || connections.containsKey(key)) {
            return;
        }
        WatchedKind<ConfigMapData> watched = named(ClusterKind.CONFIG_MAP, engineNamespace, configMap,
                ClusterObjects::configMap);
        if (connections.putIfAbsent(key, watched) == null) {
            watched.start();
            if (closed) {
                watched.close(); // closed while this engine event was being handled
            }
        }
    }

    private static String connectionKey(String engineNamespace, String engineName) {
        return engineNamespace + "/" + engineName + CONNECTION_SUFFIX;
    }

    /**
     * The informers list in pages of this many objects: a first list of 10 000 Bindings decoded in one piece left
     * the resident set 7–15 MiB higher once the view had synced (docs/explanation/performance-log.md, "Scale").
     */
    static final long LIST_PAGE = 500;

    private <R> WatchedKind<R> anyNamespace(ClusterKind kind,
            BiFunction<Map<String, Object>, String, R> mapping) {
        var resources = client.genericKubernetesResources(WatchedKind.context(kind));
        SharedIndexInformer<GenericKubernetesResource> informer = kind.namespaced()
                ? resources.inAnyNamespace().withLimit(LIST_PAGE).runnableInformer(0)
                : resources.withLimit(LIST_PAGE).runnableInformer(0);
        return new WatchedKind<>(kind, kind.namespaced() ? "all namespaces" : "cluster", informer, mapping, events);
    }

    private <R> WatchedKind<R> named(ClusterKind kind, String namespace, String name,
            BiFunction<Map<String, Object>, String, R> mapping) {
        SharedIndexInformer<GenericKubernetesResource> informer = client.genericKubernetesResources(
                WatchedKind.context(kind)).inNamespace(namespace).withName(name).runnableInformer(0);
        return new WatchedKind<>(kind, namespace + "/" + name, informer, mapping, events);
    }
}
