package io.kvcacheinjector.app.serve;

import io.kvcacheinjector.app.cli.Cli;
import io.kvcacheinjector.app.wiring.AppModule;
import io.kvcacheinjector.app.wiring.ServeClusterView;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.ProvisionException;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.adapters.k8s.reconcile.CacheBlendOperator;
import io.kvcacheinjector.adapters.k8s.reconcile.Fabric8EngineChildren;
import io.kvcacheinjector.ports.service.CacheBlendEngineReconciler;
import io.kvcacheinjector.adapters.http.server.ServerTls;
import io.kvcacheinjector.adapters.http.server.WarmUp;
import io.kvcacheinjector.ports.spi.Engines;
import io.kvcacheinjector.adapters.http.server.WebhookServer;
import io.kvcacheinjector.adapters.http.telemetry.AdmissionMetrics;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.adapters.http.telemetry.RuntimeMetrics;
import io.kvcacheinjector.adapters.http.tls.CertificateFiles;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import io.kvcacheinjector.app.engines.EngineInfoMetrics;
import io.kvcacheinjector.domain.cluster.SyncState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * A running {@code serve}: the cluster view, the handler and the HTTPS server, started in that order and stopped in
 * reverse. {@link ServeCommand} runs one until a signal; tests run one in-process.
 */
public final class ServeRuntime implements AutoCloseable {
    private final ServeClusterView cluster;
    private final WebhookServer server;
    private final JsonLog log;
    private final Optional<DeferredStart> controller;
    private volatile AfterSync afterSync;
    private volatile boolean closed;
    private volatile Optional<OldGenerationBound> oldGenerationBound = Optional.empty();

    private ServeRuntime(ServeClusterView cluster, WebhookServer server, JsonLog log,
                         Optional<DeferredStart> controller) {
        this.cluster = cluster;
        this.server = server;
        this.log = log;
        this.controller = controller;
    }

    /**
     * Starts everything.
     *
     * @throws RuntimeException with a message for the operator when a part cannot start (the cluster directory, the
     *                          certificate files, the port); whatever started is closed again
     */
    public static ServeRuntime start(ServeOptions options, JsonLog log, Clock clock) {
        Injector injector = Guice.createInjector(new AppModule(options, log, clock));
        // the engines first: a broken engines folder stops start-up before anything connects to the cluster
        EngineInfoMetrics engineInfo = provision(() -> injector.getInstance(EngineInfoMetrics.class));
        ServeClusterView cluster = provision(() -> injector.getInstance(ServeClusterView.class));
        try {
            log.info("cluster-view", "source", cluster.description(), "settingsNamespace", options.settingsNamespace());
            AdmissionHandler handler = provision(() -> injector.getInstance(AdmissionHandler.class));
            AdmissionMetrics metrics = injector.getInstance(AdmissionMetrics.class);
            ServerTls tls = tls(options, log, clock);
            // --warm-up-reviews: answered on a loopback listener before /readyz says 200, so that the JIT compiles
            // the review path now rather than over the minutes after the API server's first reviews
            // (docs/explanation/decisions.md, "Ready means warm")
            Optional<WarmUp> warmUp = options.warmUpReviews() == 0 ? Optional.empty()
                    : Optional.of(ServeWarmUp.of(options.warmUpReviews(), injector.getInstance(Engines.class),
                            options.cacheBlendContract().enabled(), options.namespace()));
            WebhookServer server = WebhookServer.start(options.serverSettings(), tls, handler,
                    () -> syncState(cluster), List.of(metrics, engineInfo, RuntimeMetrics.standard()), log, clock,
                    warmUp);
            // once the view has synced, on one thread: give back the heap the informers' first lists needed (then
            // keep the old generation near the live data), and start the controller, off this thread: its start
            // (the Operator SDK, its informers, the leader election) would otherwise take the CPU the informers and
            // the server need before /readyz can answer 200 (docs/explanation/performance-log.md, "Start-up against an
            // API server")
            Optional<DeferredStart> controller = options.reconcile()
                    .map(r -> new DeferredStart(() -> startController(r, cluster, log, clock), e -> {
                        // as when the controller started before serve was up: one line, exit status 1
                        String reason = Cli.oneLine(e.getMessage() == null
                                ? e.getClass().getSimpleName() : e.getMessage());
                        log.error("serve-failed", "reason", reason);
                        System.err.println("serve: " + reason);
                        System.exit(1);
                    }));
            ServeRuntime runtime = new ServeRuntime(cluster, server, log, controller);
            List<AfterSync.Step> steps = new java.util.ArrayList<>();
            steps.add(AfterSync.Step.onceSynced("heap-after-sync", HeapAfterSync.collection(System::gc,
                    runtime::armOldGenerationBound, log)));
            controller.ifPresent(c -> steps.add(AfterSync.Step.onceSyncedOrAfter("cacheblend-controller-start",
                    DeferredStart.SYNC_WAIT, c::start)));
            runtime.afterSync = AfterSync.start(() -> syncState(cluster) instanceof SyncState.Synced, steps,
                    (step, e) -> log.warn(step + "-failed", "error", e.getClass().getSimpleName() + ": "
                            + e.getMessage()));
            return runtime;
        } catch (RuntimeException e) {
            closeQuietly(cluster, log);
            throw e;
        }
    }

    /**
     * The CacheBlendEngine controller (docs/reference/cacheblend-engine.md), leader-elected on the Lease; a leader
     * that loses its Lease while serving exits with status 1 so its Pod restarts and competes again. It uses the
     * client of the informer-backed view (one HTTP client and one set of its threads, not two;
     * docs/explanation/performance-log.md, "Fewer threads (issue 17, third part)"), which the view closes:
     * {@code --reconcile-cacheblend} is refused with {@code --cluster} ({@link ServeOptions}), so there is always one.
     */
    private static AutoCloseable startController(ServeOptions.Reconcile r, ServeClusterView cluster, JsonLog log,
                                                 Clock clock) {
        KubernetesClient client = cluster.client().orElseThrow(() -> new IllegalStateException(
                "--reconcile-cacheblend needs the cluster view of the Kubernetes API, not --cluster"));
        try {
            log.info("cacheblend-controller-starting", "lease", r.leaseNamespace() + "/" + r.leaseName(),
                    "identity", r.identity());
            return CacheBlendOperator.start(client,
                    new CacheBlendEngineReconciler(new Fabric8EngineChildren(client), clock),
                    r.leaseName(), r.leaseNamespace(), r.identity(),
                    line -> log.info("cacheblend-controller", "event", line),
                    () -> {
                        log.error("cacheblend-lease-lost", "lease", r.leaseNamespace() + "/" + r.leaseName(),
                                "fix", "none needed: serve exits and its Pod restarts");
                        new Thread(() -> System.exit(1), "cacheblend-lease-lost").start();
                    });
        } catch (RuntimeException e) {
            throw new IllegalStateException("the CacheBlendEngine controller cannot start ("
                    + Cli.oneLine(String.valueOf(e.getMessage())) + "); check that the CacheBlendEngine CRD"
                    + " is installed and that the ServiceAccount may use Leases in " + r.leaseNamespace()
                    + " (chart value cacheBlend.controller.enabled)", e);
        }
    }

    /** Guice wraps what a provider throws; the operator needs the provider's own message (the file, the engine). */
    private static <T> T provision(java.util.function.Supplier<T> get) {
        try {
            return get.get();
        } catch (ProvisionException e) {
            for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
                if (t instanceof RuntimeException r && !(t instanceof ProvisionException)) {
                    throw r;
                }
            }
            throw e;
        }
    }

    /** Keeps the old generation near the live data from now on; nothing once {@code serve} is closing. */
    private void armOldGenerationBound() {
        Optional<OldGenerationBound> bound = OldGenerationBound.arm(oldGenerationHeadroom());
        oldGenerationBound = bound;
        if (closed) { // closed while the collection ran
            bound.ifPresent(OldGenerationBound::disarm);
        }
    }

    /** The HTTPS port. */
    public int port() {
        return server.port();
    }

    /** The plain-HTTP port of the probes ({@code --health-port}, the bound one when it was 0); empty without one. */
    public java.util.OptionalInt healthPort() {
        return server.healthPort();
    }

    /** The server, for readiness checks in tests. */
    WebhookServer server() {
        return server;
    }

    /**
     * Stops as on SIGTERM: the server keeps answering, not ready, for the shutdown delay (which {@code wait} may cut
     * short), then {@link #close()}.
     */
    void stop(WebhookServer.DelayWait wait) {
        server.shutdown(wait);
        close();
    }

    /** Stops gracefully now: the server first (reviews in flight finish), then the cluster view. Idempotent. */
    @Override
    public void close() {
        closed = true;
        if (afterSync != null) {
            afterSync.close();
        }
        oldGenerationBound.ifPresent(OldGenerationBound::disarm);
        controller.ifPresent(c -> {
            try {
                c.close();
            } catch (RuntimeException e) {
                log.warn("cacheblend-controller-stop-failed", "error", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        });
        server.shutdown();
        closeQuietly(cluster, log);
    }

    private static void closeQuietly(ServeClusterView view, JsonLog log) {
        try {
            view.closer().close();
        } catch (Exception e) {
            log.warn("cluster-view-close-failed", "error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /**
     * {@link OldGenerationBound#DEFAULT_HEADROOM_BYTES}, or {@code -Dkvcache.heap.oldGenerationHeadroomMiB} (0: no
     * bound), which exists to measure the bound against its absence (docs/explanation/performance.md).
     */
    static long oldGenerationHeadroom() {
        String given = System.getProperty("kvcache.heap.oldGenerationHeadroomMiB", "");
        try {
            return given.isBlank() ? OldGenerationBound.DEFAULT_HEADROOM_BYTES
                    : Math.max(0, Long.parseLong(given.strip())) * 1024 * 1024;
        } catch (NumberFormatException e) {
            return OldGenerationBound.DEFAULT_HEADROOM_BYTES;
        }
    }

    private static SyncState syncState(ServeClusterView cluster) {
        return cluster.directory().syncState();
    }

    private static ServerTls tls(ServeOptions options, JsonLog log, Clock clock) {
        if (options.tlsCert().isPresent()) {
            return new ServerTls.FromFiles(new CertificateFiles(options.tlsCert().get(), options.tlsKey().orElseThrow(),
                    options.tlsClientCa()));
        }
        SelfSignedCertificate generated = SelfSignedCertificate.forLocalhost(clock);
        log.info("tls-generated", "subject", generated.serving().leaf().getSubjectX500Principal().getName(),
                "names", "localhost, 127.0.0.1, ::1",
                "notAfter", generated.serving().leaf().getNotAfter().toInstant().toString());
        options.tlsCaOut().ifPresent(out -> {
            writeAtomically(out, generated.caPem());
            log.info("tls-ca-written", "file", out.toAbsolutePath().toString(),
                    "note", "clients trust this CA to reach the server over https://localhost");
        });
        return new ServerTls.Generated(generated, options.tlsClientCa());
    }

    private static void writeAtomically(Path file, String text) {
        try {
            Path absolute = file.toAbsolutePath();
            if (absolute.getParent() != null) {
                Files.createDirectories(absolute.getParent());
            }
            Path tmp = absolute.resolveSibling(absolute.getFileName() + ".tmp");
            Files.writeString(tmp, text, StandardCharsets.US_ASCII);
            Files.move(tmp, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write --tls-ca-out " + file + " (" + e.getClass().getSimpleName()
                    + ": " + e.getMessage() + ")", e);
        }
    }
}
