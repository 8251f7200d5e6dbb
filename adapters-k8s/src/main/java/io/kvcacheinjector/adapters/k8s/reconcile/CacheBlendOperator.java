package io.kvcacheinjector.adapters.k8s.reconcile;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.kvcacheinjector.ports.in.CacheBlendReconcileUseCase;
import java.time.Duration;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The CacheBlendEngine controller as it runs inside {@code serve --reconcile-cacheblend}: a Java Operator SDK
 * {@link Operator} with one controller, watching every namespace, elected leader on the Lease {@code leaseName} in
 * {@code leaseNamespace} (only the leader reconciles; the others wait for the Lease). A leader that loses its Lease
 * while running calls {@code onLostLease} (serve exits then, so its Pod restarts and competes again); stopping it with
 * {@link #close()} does not.
 *
 * <p>The client is the caller's: {@code serve} hands it the client its cluster view already uses (one HTTP client,
 * one connection and one set of threads, not two), so stopping the operator leaves the client open for the caller to
 * close. Reconciles run on at most {@link #RECONCILE_THREADS} threads that end when idle: the Operator SDK's default,
 * a fixed pool of 50, starts a new thread for each of the first 50 reconciles and keeps them all for good, which a
 * long-running {@code serve} reaches within hours (the periodic reconcile alone) and which the webhook's memory
 * budget does not have (docs/explanation/performance-log.md, "Fewer threads").
 */
public final class CacheBlendOperator implements AutoCloseable {
    /** The controller's name (JOSDK), as it appears in logs and metrics. */
    public static final String CONTROLLER = "cacheblendengine";

    /**
     * At most this many reconciles at once. Each is a few requests (apply the DaemonSet and the ConfigMap, patch the
     * status), and a cluster has one engine per node pool, not hundreds.
     */
    public static final int RECONCILE_THREADS = 2;
    /** How long an idle reconcile thread is kept. */
    static final Duration RECONCILE_THREAD_IDLE = Duration.ofSeconds(30);

    private final Operator operator;
    private final AtomicBoolean closing;

    private CacheBlendOperator(Operator operator, AtomicBoolean closing) {
        this.operator = operator;
        this.closing = closing;
    }

    /**
     * Starts the operator.
     *
     * @param identity this replica's name in the Lease ({@code holderIdentity})
     */
    public static CacheBlendOperator start(KubernetesClient client, CacheBlendReconcileUseCase useCase,
                                           String leaseName, String leaseNamespace, String identity,
                                           Consumer<String> log, Runnable onLostLease) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(onLostLease, "onLostLease");
        AtomicBoolean closing = new AtomicBoolean();
        LeaderCallbacks callbacks = new LeaderCallbacks(
                () -> log.accept("cacheblend controller: leading (Lease " + leaseNamespace + "/" + leaseName + ", "
                        + identity + ")"),
                () -> {
                    if (!closing.get()) {
                        log.accept("cacheblend controller: lost the Lease " + leaseNamespace + "/" + leaseName);
                        onLostLease.run();
                    }
                },
                leader -> log.accept("cacheblend controller: the leader is " + leader));
        Operator operator = new Operator(o -> o
                .withKubernetesClient(client)
                .withCloseClientOnStop(false)
                .withConcurrentReconciliationThreads(RECONCILE_THREADS)
                .withExecutorService(reconcileExecutor(RECONCILE_THREAD_IDLE))
                .withStopOnInformerErrorDuringStartup(false)
                .withUseSSAToPatchPrimaryResource(false)
                .withLeaderElectionConfiguration(LeaderElectionConfigurationBuilder
                        .aLeaderElectionConfiguration(leaseName)
                        .withLeaseNamespace(leaseNamespace)
                        .withIdentity(identity)
                        .withLeaderCallbacks(callbacks)
                        .withExitOnStopLeading(false)
                        .build()));
        operator.register(new CacheBlendEngineController(useCase, log), c -> c
                .withName(CONTROLLER)
                .withFieldManager(Fabric8EngineChildren.FIELD_MANAGER)
                .watchingAllNamespaces()
                .withReconciliationMaxInterval(Duration.ofMinutes(5)));
        operator.start();
        return new CacheBlendOperator(operator, closing);
    }

    /**
     * The reconcile threads: {@value #RECONCILE_THREADS} at most, named {@code cacheblend-reconcile-N}, daemon, ended
     * after {@code idle} without work ({@link #RECONCILE_THREAD_IDLE} in {@code serve}); events beyond that wait in
     * the queue (the Operator SDK already serialises the events of one engine).
     */
    static ExecutorService reconcileExecutor(Duration idle) {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(RECONCILE_THREADS, RECONCILE_THREADS,
                idle.toMillis(), TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                r -> Thread.ofPlatform().daemon().name("cacheblend-reconcile-" + n.incrementAndGet()).unstarted(r));
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    @Override
    public void close() {
        closing.set(true);
        operator.stop();
    }
}
