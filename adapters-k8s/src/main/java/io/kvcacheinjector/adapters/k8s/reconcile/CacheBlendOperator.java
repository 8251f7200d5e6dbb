package io.kvcacheinjector.adapters.k8s.reconcile;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.kvcacheinjector.ports.in.CacheBlendReconcileUseCase;
import java.time.Duration;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The CacheBlendEngine controller as it runs inside {@code serve --reconcile-cacheblend}: a Java Operator SDK
 * {@link Operator} with one controller, watching every namespace, elected leader on the Lease {@code leaseName} in
 * {@code leaseNamespace} (only the leader reconciles; the others wait for the Lease). A leader that loses its Lease
 * while running calls {@code onLostLease} (serve exits then, so its Pod restarts and competes again); stopping it with
 * {@link #close()} does not. It has its own client, so stopping it releases nothing the webhook needs.
 */
public final class CacheBlendOperator implements AutoCloseable {
    /** The controller's name (JOSDK), as it appears in logs and metrics. */
    public static final String CONTROLLER = "cacheblendengine";

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
                .withCloseClientOnStop(true)
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

    @Override
    public void close() {
        closing.set(true);
        operator.stop();
    }
}
