package io.kvcacheinjector.adapters.k8s.informer;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kvcacheinjector.adapters.k8s.CacheBlendContract;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import io.kvcacheinjector.domain.cluster.SyncState;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * One shared informer over one kind, read as generic resources (so that a field of an unexpected type can never stall
 * the informer: the mapping reads it as absent), whose store holds each object's domain record, mapped once per
 * {@code resourceVersion} ({@link RecordItemStore}).
 *
 * @param <R> the domain record the objects map to
 */
final class WatchedKind<R> implements AutoCloseable {
    private final ClusterKind kind;
    private final String scope;
    private final SharedIndexInformer<GenericKubernetesResource> informer;
    private final RecordItemStore<R> store;
    private final BiFunction<Map<String, Object>, String, R> mapping;
    private volatile Optional<String> lastError = Optional.empty();
    /** The failure last reported through {@link InformerEvents}; null while the informer works. */
    private final java.util.concurrent.atomic.AtomicReference<String> reported =
            new java.util.concurrent.atomic.AtomicReference<>();
    private final InformerEvents events;
    /** {@link System#nanoTime()} when {@link #state()} last found the watch open; 0 before that. */
    private volatile long lastSeenWatching;

    /**
     * How long a synced informer may be without its watch before the view counts as not synced. An API server ends
     * every watch when its {@code timeoutSeconds} run out (fabric8 asks for 600), and the informer watches again
     * from the last resourceVersion a second or two later: nothing is missed meanwhile, so refusing reviews with
     * {@code cluster-not-ready} and failing readiness at every renewal would be wrong (the soak found exactly that).
     * A watch away for longer is lost. The time counts from the last moment the view saw the watch open, so a view
     * that nobody asked for a while counts a missing watch as lost at once.
     */
    static final java.time.Duration WATCH_RESUME_GRACE = java.time.Duration.ofSeconds(5);

    /**
     * @param scope   where the informer looks, for messages ("all namespaces", "namespace x, name y")
     * @param mapping JSON tree and namespace to the domain record
     */
    WatchedKind(ClusterKind kind, String scope, SharedIndexInformer<GenericKubernetesResource> informer,
            BiFunction<Map<String, Object>, String, R> mapping, InformerEvents events) {
        this.kind = kind;
        this.scope = scope;
        this.informer = informer;
        this.mapping = mapping;
        this.events = events;
        // the cache holds the records only, and no namespace index (lookups go by key)
        informer.removeNamespaceIndex();
        // a Namespace is read for its Pod Security enforce label only (the CacheBlend warning)
        this.store = new RecordItemStore<>(kind.apiVersion(), kind.kind(), kind == ClusterKind.NAMESPACE
                ? java.util.Set.of(io.kvcacheinjector.domain.cluster.NamespaceLabels.PSS_ENFORCE) : java.util.Set.of(),
                mapping);
        informer.itemStore(store);
        informer.exceptionHandler((started, t) -> {
            boolean notServed = notFound(t);
            String clause = notServed ? notServedClause(kind) : describe(t);
            lastError = Optional.of(clause);
            if (!clause.equals(reported.getAndSet(clause))) { // one event per change of state, not per retry
                events.failing(kind.kind(), scope, notServed && !kind.group().isEmpty() ? crdName(kind) : "",
                        clause, notServed ? notServedFix(kind) : "the informer retries with backoff; check that the"
                                + " API server is reachable and that the webhook's ServiceAccount may list and watch "
                                + kind.plural());
            }
            return true; // always resume: a CRD installed later, a lost connection, an expired resourceVersion
        });
    }

    static ResourceDefinitionContext context(ClusterKind kind) {
        return new ResourceDefinitionContext.Builder()
                .withGroup(kind.group())
                .withVersion(kind.version())
                .withKind(kind.kind())
                .withPlural(kind.plural())
                .withNamespaced(kind.namespaced())
                .build();
    }

    ClusterKind kind() {
        return kind;
    }

    SharedIndexInformer<GenericKubernetesResource> informer() {
        return informer;
    }

    void start() {
        informer.start().thenRun(this::listedAgain);
    }

    /** Reports the end of a reported failure, once. */
    private void listedAgain() {
        if (reported.getAndSet(null) != null) {
            events.recovered(kind.kind(), scope);
        }
    }

    /**
     * Synced once the first list is in the cache, and while the watch is open or has been away for less than
     * {@link #WATCH_RESUME_GRACE} since the view last saw it open.
     */
    SyncState state() {
        if (!informer.hasSynced()) {
            return new SyncState.NotSynced("the " + kind.kind() + " informer (" + scope
                    + ") has not finished its first list" + lastError.map(e -> ": " + e).orElse(""));
        }
        long now = System.nanoTime();
        if (!informer.isWatching()) {
            long seen = lastSeenWatching;
            if (seen != 0 && now - seen < WATCH_RESUME_GRACE.toNanos()) {
                return SyncState.synced(); // most likely a watch the server ended on time, being resumed
            }
            return new SyncState.NotSynced("the " + kind.kind() + " watch (" + scope + ") dropped and is resuming"
                    + lastError.map(e -> ": " + e).orElse(""));
        }
        lastSeenWatching = now;
        lastError = Optional.empty(); // caught up: an earlier error no longer explains anything
        listedAgain();
        return SyncState.synced();
    }

    boolean ready() {
        return informer.hasSynced() && informer.isWatching();
    }

    /** The cached object's record, without any API call; empty on a cache miss. */
    Optional<R> cached(String namespace, String name) {
        return Optional.ofNullable(store.record(key(namespace, name)));
    }

    /** Maps an object given as a JSON tree (from a live read). */
    R mapTree(Map<String, Object> tree, String namespace) {
        return mapping.apply(tree, namespace);
    }

    private String key(String namespace, String name) {
        return kind.namespaced() && namespace != null && !namespace.isEmpty() ? namespace + "/" + name : name;
    }

    @Override
    public void close() {
        informer.stop();
    }

    /** {@code cacheblendengines.lmcache.lmcache.ai}: the name of the CRD that defines a custom kind. */
    static String crdName(ClusterKind kind) {
        return kind.plural() + "." + kind.group();
    }

    /**
     * The clause for a list answered 404: the API server does not serve the resource at all (a list of an existing
     * resource answers an empty list, even in a missing namespace). Fixed text rather than the server's message, which
     * differs between servers ("the server could not find the requested resource", or a plain-text 404 that clients
     * render as "Not Found"); docs/reference/server-flags.md quotes it.
     */
    static String notServedClause(ClusterKind kind) {
        String resource = kind.plural() + (kind.group().isEmpty() ? "" : "." + kind.group()) + "/" + kind.version();
        String clause = "HTTP 404: the API server does not serve " + resource;
        if (!kind.group().isEmpty()) {
            clause += " (is the CRD " + crdName(kind) + " installed?"
                    + (kind == ClusterKind.CACHE_BLEND_ENGINE ? " " + CacheBlendContract.MISSING_CRD_HINT : "") + ")";
        }
        return clause;
    }

    private static String notServedFix(ClusterKind kind) {
        if (kind.group().isEmpty()) {
            return "check that the API server is a Kubernetes API server serving " + kind.apiVersion();
        }
        String fix = "install the CRD " + crdName(kind) + " (kubectl apply -f deploy/crds/" + kind.group() + "_"
                + kind.plural() + ".yaml, or the chart without --skip-crds)";
        return kind == ClusterKind.CACHE_BLEND_ENGINE
                ? fix + ", or start the webhook with --disable-cacheblend (chart value cacheBlend.contract.enabled=false)"
                : fix;
    }

    private static boolean notFound(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof KubernetesClientException k && k.getCode() == 404) {
                return true;
            }
        }
        return false;
    }

    /** One clause for a message: the HTTP status and the API server's own message, no stack trace. */
    static String describe(Throwable t) {
        Throwable cause = t;
        while (!(cause instanceof KubernetesClientException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof KubernetesClientException k) {
            String message = k.getStatus() != null && k.getStatus().getMessage() != null
                    ? k.getStatus().getMessage() : firstLine(k.getMessage());
            return k.getCode() > 0 ? "HTTP " + k.getCode() + ": " + message : message;
        }
        return t.getClass().getSimpleName() + ": " + firstLine(t.getMessage());
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "(no message)";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
