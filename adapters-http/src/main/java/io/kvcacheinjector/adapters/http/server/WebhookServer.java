package io.kvcacheinjector.adapters.http.server;

import io.helidon.common.socket.SocketOptions;
import io.helidon.common.tls.Tls;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.kvcacheinjector.adapters.http.AdmissionAnswer;
import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.adapters.http.review.AdmissionResponseWriter;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.adapters.http.telemetry.MetricSource;
import io.kvcacheinjector.adapters.http.tls.Pem;
import io.kvcacheinjector.adapters.http.tls.TlsFileWatcher;
import io.kvcacheinjector.adapters.http.tls.TlsLoad;
import io.kvcacheinjector.adapters.http.tls.TlsMaterial;
import io.kvcacheinjector.adapters.http.tls.TlsMetrics;
import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The HTTPS webhook server (Helidon SE). Routes:
 * <ul>
 *   <li>{@code POST /kvcache/mutate}, {@code POST /kvcache/validate}, {@code POST /cacheblend/mutate}: the body
 *       (at most {@code maxBodyBytes}, else 413) goes to {@link AdmissionHandler#answer}, whose answer is sent as
 *       is, and the review's log line written after it. Another method: 405.</li>
 *   <li>{@code GET /healthz}: 200 while the process serves.</li>
 *   <li>{@code GET /readyz}: 200 only when the serving certificate is loaded and currently valid, the cluster view
 *       has synced, and no shutdown has begun; otherwise 503 with the reasons.</li>
 *   <li>{@code GET /metrics}: every {@link MetricSource}'s families, through the Prometheus Java client: text format
 *       0.0.4 by default, OpenMetrics 1.0 when the {@code Accept} header asks for it.</li>
 * </ul>
 * With {@link WebhookServerSettings#healthPort()}, a second listener on that port speaks plain HTTP and answers only
 * {@code GET /healthz} and {@code GET /readyz}, the same answers as above: the kubelet's probes then cost a replica
 * no TLS handshake each (docs/explanation/decisions.md, "The probes on a plain-HTTP health port").
 * TLS as {@link WebhookServerSettings#tlsProfile()} says ({@link TlsProfile}: by default TLS 1.3, and 1.2 with ECDHE
 * and AEAD suites only; no renegotiation), on every route. Certificate files are polled and rotated without a restart. With client CAs configured,
 * client certificates are requested on every connection, and the admission routes answer 403 without a verified
 * one (health, readiness and metrics stay open to the kubelet and Prometheus).
 * <p>A stop ({@link #shutdown(DelayWait)}) first keeps serving, not ready, for the shutdown delay: the API server
 * goes on sending reviews to a terminating Pod until its endpoint leaves its view, and does not retry them.
 */
public final class WebhookServer implements AutoCloseable {
    /** The Helidon socket name of the plain-HTTP health listener. */
    static final String HEALTH_SOCKET = "health";
    private final WebServer server;
    private final WebhookServerSettings settings;
    private final Optional<TlsFileWatcher> watcher;
    private final AtomicReference<X509Certificate> servingLeaf;
    private final Supplier<SyncState> clusterSync;
    private final JsonLog log;
    private final Clock clock;
    private final AtomicBoolean shuttingDown = new AtomicBoolean();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final int boundPort;
    private final OptionalInt boundHealthPort;
    private final ReloadableTls tls;
    /** Reviews the warm-up has sent, and how many it sends; -1 when no warm-up is running (ready as to warm-up). */
    private final AtomicInteger warmUpSent = new AtomicInteger();
    private volatile int warmUpTotal = -1;

    private WebhookServer(WebServer server, WebhookServerSettings settings, Optional<TlsFileWatcher> watcher,
                          AtomicReference<X509Certificate> servingLeaf, Supplier<SyncState> clusterSync, JsonLog log,
                          Clock clock, ReloadableTls tls) {
        this.server = server;
        this.settings = settings;
        this.watcher = watcher;
        this.servingLeaf = servingLeaf;
        this.clusterSync = clusterSync;
        this.log = log;
        this.clock = clock;
        this.tls = tls;
        this.boundPort = server.port();
        this.boundHealthPort = settings.healthPort().isPresent() ? OptionalInt.of(server.port(HEALTH_SOCKET))
                : OptionalInt.empty();
    }

    /**
     * Loads the TLS material, binds the port and starts serving.
     *
     * @param clusterSync   the cluster view's sync state, asked on every {@code /readyz}
     * @param metricSources what {@code /metrics} exposes, in order (the server adds its TLS metrics)
     * @throws IllegalStateException when the certificate cannot be loaded or the port cannot be bound; the
     *                               message says which and why
     */
    public static WebhookServer start(WebhookServerSettings settings, ServerTls tls, AdmissionHandler handler,
                                      Supplier<SyncState> clusterSync, List<MetricSource> metricSources,
                                      JsonLog log, Clock clock) {
        return start(settings, tls, handler, clusterSync, metricSources, log, clock, Optional.empty());
    }

    /**
     * {@link #start(WebhookServerSettings, ServerTls, AdmissionHandler, Supplier, List, JsonLog, Clock)}, then, with
     * {@code warmUp}, runs it on a thread of its own ({@link WarmUp}): {@code /readyz} answers 503 "warming up"
     * until it ends. It logs {@code warm-up-done} (or {@code warm-up-failed}, and the server is ready all the same:
     * a warm-up only saves the JIT's time later).
     */
    public static WebhookServer start(WebhookServerSettings settings, ServerTls tls, AdmissionHandler handler,
                                      Supplier<SyncState> clusterSync, List<MetricSource> metricSources,
                                      JsonLog log, Clock clock, Optional<WarmUp> warmUp) {
        Objects.requireNonNull(warmUp, "warmUp");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(clusterSync, "clusterSync");
        Objects.requireNonNull(log, "log");
        Objects.requireNonNull(clock, "clock");
        TlsMetrics tlsMetrics = new TlsMetrics();
        AtomicReference<X509Certificate> leaf = new AtomicReference<>();
        AtomicReference<ReloadableTls> tlsRef = new AtomicReference<>();

        TlsMaterial initial;
        Optional<TlsFileWatcher> watcher;
        switch (tls) {
            case ServerTls.FromFiles files -> {
                TlsFileWatcher w = new TlsFileWatcher(files.files(), material -> {
                    tlsRef.get().reload(material);
                    leaf.set(material.serving().leaf());
                }, log, tlsMetrics, clock);
                switch (w.loadInitial()) {
                    case TlsLoad.Loaded loaded -> initial = loaded.material();
                    case TlsLoad.Failed failed -> throw new IllegalStateException(
                            "cannot start: the TLS files are not usable: " + failed.reason());
                }
                watcher = Optional.of(w);
            }
            case ServerTls.Generated generated -> {
                List<X509Certificate> cas = List.of();
                if (generated.clientCaFile().isPresent()) {
                    cas = readClientCas(generated.clientCaFile().get());
                }
                initial = new TlsMaterial(generated.certificate().serving(), cas);
                tlsMetrics.serving(initial.serving().leaf());
                watcher = Optional.empty();
            }
        }
        leaf.set(initial.serving().leaf());
        boolean clientCertificateRequired = !initial.clientCas().isEmpty();
        ReloadableTls reloadable = new ReloadableTls(initial);
        tlsRef.set(reloadable);

        PrometheusRegistry registry = new PrometheusRegistry();
        for (MetricSource source : metricSources) {
            source.registerIn(registry);
        }
        tlsMetrics.registerIn(registry);

        WebhookServer[] self = new WebhookServer[1];
        registry.register(GaugeWithCallback.builder()
                .name("kvcache_injector_ready")
                .help("1 when /readyz answers 200, 0 otherwise.")
                .callback(callback -> callback.call(self[0] != null && self[0].ready() ? 1 : 0))
                .build());
        WebServer server;
        try {
            var builder = WebServer.builder()
                    .host(settings.host())
                    .port(settings.port())
                    .connectionOptions(WebhookServer::noDelay)
                    .shutdownHook(false)
                    .shutdownGracePeriod(settings.shutdownGrace())
                    .featuresDiscoverServices(false)
                    .tls(helidonTls(reloadable, settings.tlsProfile(), clientCertificateRequired))
                    .routing(routing -> routes(routing, handler, settings.maxBodyBytes(), clientCertificateRequired,
                            registry, () -> self[0]));
            settings.healthPort().ifPresent(healthPort -> builder.putSocket(HEALTH_SOCKET, socket -> socket
                    .host(settings.host())
                    .port(healthPort)
                    .connectionOptions(WebhookServer::noDelay)
                    .shutdownGracePeriod(settings.shutdownGrace())
                    .routing(routing -> healthRoutes(routing, () -> self[0]))));
            server = builder.build();
            server.start();
        } catch (UncheckedIOException e) {
            throw new IllegalStateException(cannotListen(settings) + " (" + rootMessage(e) + ")", e);
        }
        // Helidon 4.5 logs a failed bind (port in use, address not local) as SEVERE and returns from start() without
        // throwing; the server then reports itself not running and port -1. A serve that does not listen must stop.
        if (!server.isRunning() || server.port() <= 0
                || settings.healthPort().isPresent() && server.port(HEALTH_SOCKET) <= 0) {
            try {
                server.stop();
            } catch (RuntimeException ignored) {
                // nothing is listening; stopping is best-effort
            }
            throw new IllegalStateException(cannotListen(settings)
                    + " (the port is in use or the address is not one of this host's; Helidon's log above says which):"
                    + " free the port or choose another with " + (settings.healthPort().isPresent()
                    ? "--port or --health-port" : "--port"));
        }
        self[0] = new WebhookServer(server, settings, watcher, leaf, clusterSync, log, clock, reloadable);
        warmUp.ifPresent(w -> {
            self[0].warmUpTotal = w.reviews();
            Thread.ofPlatform().daemon().name("warm-up").start(() -> self[0].warmUp(w));
        });
        watcher.ifPresent(w -> w.start(settings.tlsPollPeriod()));
        log.info("server-started", "port", server.port(),
                "healthPort", self[0].healthPort().isPresent() ? self[0].healthPort().getAsInt() : "none", "tls", tls instanceof ServerTls.FromFiles ? "files" : "generated",
                "tlsProfile", settings.tlsProfile().flagValue(),
                "clientCertificates", clientCertificateRequired ? "required on admission routes" : "not requested",
                "maxBodyBytes", settings.maxBodyBytes());
        return self[0];
    }

    /**
     * Every accepted connection gets {@code TCP_NODELAY}, as a Go server's do: Helidon leaves Nagle's algorithm on,
     * which holds back the last, partial segment of an answer while an earlier small segment of the same connection
     * (the TLS 1.3 session ticket sent after a handshake, a handshake's own small writes) waits for the client's
     * delayed acknowledgement (issue 32; docs/explanation/decisions.md, "TCP_NODELAY on every connection").
     */
    private static void noDelay(SocketOptions.Builder options) {
        options.tcpNoDelay(true);
    }

    private static String cannotListen(WebhookServerSettings settings) {
        return "cannot start: could not listen on " + settings.host() + ":" + settings.port()
                + (settings.healthPort().isPresent() ? " and :" + settings.healthPort().getAsInt() : "");
    }

    /** The port the server listens (or listened) on: the bound one when {@code port} was 0. */
    public int port() {
        return boundPort;
    }

    /** The plain-HTTP health listener's port (the bound one when it was 0); empty when there is none. */
    public OptionalInt healthPort() {
        return boundHealthPort;
    }

    /** Whether {@code /readyz} would answer 200 now. */
    public boolean ready() {
        return notReadyReasons().isEmpty();
    }

    /** Why the server is not ready; empty when it is. */
    public List<String> notReadyReasons() {
        List<String> reasons = new ArrayList<>();
        if (shuttingDown.get()) {
            reasons.add("shutting down");
        }
        X509Certificate current = servingLeaf.get();
        if (current == null) {
            reasons.add("no serving certificate is loaded");
        } else if (!current.getNotAfter().toInstant().isAfter(clock.instant())) {
            reasons.add("the serving certificate expired at " + current.getNotAfter().toInstant());
        }
        SyncState sync;
        try {
            sync = clusterSync.get();
        } catch (RuntimeException e) {
            sync = new SyncState.NotSynced("the cluster view could not report its state ("
                    + e.getClass().getSimpleName() + ")");
        }
        if (sync instanceof SyncState.NotSynced notSynced) {
            reasons.add("the cluster view has not synced: " + notSynced.reason());
        }
        int warmUp = warmUpTotal;
        if (warmUp >= 0) {
            reasons.add("warming up (" + warmUpSent.get() + " of " + warmUp + " reviews sent)");
        }
        return reasons;
    }

    /**
     * Runs {@code warmUp} on a second listener ({@code 127.0.0.1}, a free port, this server's TLS context under its
     * profile, no client certificate asked for, the same routes over {@link WarmUp#handler()}), then closes it and
     * ends the "warming up" reason. A stop that begins meanwhile ends it early.
     */
    private void warmUp(WarmUp warmUp) {
        WebServer listener = null;
        try {
            listener = WebServer.builder()
                    .host("127.0.0.1")
                    .port(0)
                    .connectionOptions(WebhookServer::noDelay)
                    .shutdownHook(false)
                    .featuresDiscoverServices(false)
                    .tls(helidonTls(tls, settings.tlsProfile(), false))
                    .routing(routing -> routes(routing, warmUp.handler(), settings.maxBodyBytes(), false,
                            new PrometheusRegistry(), () -> null))
                    .build();
            listener.start();
            if (!listener.isRunning() || listener.port() <= 0) {
                throw new IOException("the warm-up listener could not bind a port on 127.0.0.1");
            }
            WarmUp.Result r = warmUp.drive(listener.port(), servingLeaf.get(), warmUpSent, shuttingDown::get);
            long settle = WarmUp.awaitCompilerIdle(shuttingDown::get);
            log.info("warm-up-done", "reviews", r.sent(), "answered200", r.answered(), "connections", r.opened(),
                    "millis", r.millis(), "compilerSettleMillis", settle);
        } catch (IOException | RuntimeException e) {
            log.warn("warm-up-failed", "error", e.getClass().getSimpleName() + ": " + e.getMessage(),
                    "note", "serving without a warm-up: the first minutes' reviews pay the JIT's compilation");
        } finally {
            if (listener != null) {
                try {
                    listener.stop();
                } catch (RuntimeException ignored) {
                    // the warm-up is over either way
                }
            }
            warmUpTotal = -1;
        }
    }

    /** Checks the certificate files now instead of waiting for the next poll; returns whether it reloaded. */
    public boolean pollTlsFiles() {
        return watcher.map(TlsFileWatcher::poll).orElse(false);
    }

    /** Waits out the shutdown delay, unless something cuts it short. */
    @FunctionalInterface
    public interface DelayWait {
        /**
         * Waits up to {@code delay}.
         *
         * @return what cut the wait short (for example {@code SIGINT}, a second signal), or empty when the delay
         *         elapsed
         */
        Optional<String> await(Duration delay) throws InterruptedException;

        /** Waits the whole delay. */
        static DelayWait sleeping() {
            return delay -> {
                Thread.sleep(delay);
                return Optional.empty();
            };
        }
    }

    /**
     * Stops as a terminating Pod should: {@code /readyz} turns 503 at once, but the port keeps accepting and every
     * route keeps answering for {@link WebhookServerSettings#shutdownDelay()} (each response then carries
     * {@code Connection: close}, so that keep-alive clients reconnect, through the Service, to another replica);
     * then {@link #shutdown()}. {@code wait} may end the delay early. Logs {@code shutdown-delay-started} and
     * {@code shutdown-delay-ended} when the delay is not zero. Returns when the server has stopped.
     */
    public void shutdown(DelayWait wait) {
        Objects.requireNonNull(wait, "wait");
        Duration delay = settings.shutdownDelay();
        if (!delay.isZero() && !stopped.get() && shuttingDown.compareAndSet(false, true)) {
            log.info("shutdown-delay-started", "delaySeconds", seconds(delay),
                    "note", "/readyz answers 503; reviews are answered until the delay ends");
            long started = System.nanoTime();
            String endedBy;
            try {
                endedBy = wait.await(delay).orElse("elapsed");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                endedBy = "interrupted";
            }
            log.info("shutdown-delay-ended", "endedBy", endedBy,
                    "waitedSeconds", seconds(Duration.ofNanos(System.nanoTime() - started)));
        }
        shutdown();
    }

    /**
     * Stops gracefully now, without the shutdown delay: {@code /readyz} turns 503, the port stops accepting,
     * reviews in flight get up to the grace period to finish, idle connections are closed. Idempotent; returns
     * when the server has stopped.
     */
    public void shutdown() {
        shuttingDown.set(true);
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        log.info("server-stopping", "graceSeconds", seconds(settings.shutdownGrace()));
        watcher.ifPresent(TlsFileWatcher::close);
        server.stop();
        log.info("server-stopped");
    }

    /** Whether a stop has begun (the shutdown delay included). */
    public boolean shuttingDown() {
        return shuttingDown.get();
    }

    private static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }

    @Override
    public void close() {
        shutdown();
    }

    /** The Helidon TLS configuration for {@code material} under {@code profile}. */
    static Tls helidonTls(TlsMaterial material, TlsProfile profile) {
        return helidonTls(new ReloadableTls(material), profile, !material.clientCas().isEmpty());
    }

    /**
     * Over a context whose certificate and client CAs {@link ReloadableTls#reload} swaps: the profile's parameters
     * are the listener's, so a reloaded certificate (of either key type) is served under the same profile.
     */
    static Tls helidonTls(ReloadableTls tls, TlsProfile profile, boolean clientCas) {
        return Tls.builder()
                .sslContext(tls.sslContext())
                .sslParameters(profile.sslParameters(clientCas))
                .build();
    }

    private static void routes(HttpRouting.Builder routing, AdmissionHandler handler, long maxBodyBytes,
                               boolean clientCertificateRequired, PrometheusRegistry registry,
                               Supplier<WebhookServer> self) {
        // during the shutdown delay: every answer closes its connection, so that a keep-alive client (the API
        // server) opens its next one through the Service, to a replica that is not stopping
        routing.addFilter((chain, req, res) -> {
            WebhookServer server = self.get();
            if (server != null && server.shuttingDown.get()) {
                res.header(HeaderNames.CONNECTION.defaultCase(), "close");
            }
            chain.proceed();
        });
        for (Webhook webhook : Webhook.values()) {
            String path = "/" + webhook.path();
            routing.post(path, (req, res) -> admission(webhook, req, res, handler, maxBodyBytes,
                    clientCertificateRequired));
            routing.any(path, (req, res) -> {
                res.status(405).header(HeaderNames.ALLOW.defaultCase(), "POST")
                        .header(HeaderNames.CONTENT_TYPE.defaultCase(), AdmissionAnswer.CONTENT_TYPE)
                        .send(AdmissionResponseWriter.error("method-not-allowed",
                                path + " accepts POST with an AdmissionReview body, not "
                                        + req.prologue().method().text()));
            });
        }
        healthRoutes(routing, self);
        ExpositionFormats formats = ExpositionFormats.init();
        routing.route(Method.GET, "/metrics", (req, res) -> {
            ExpositionFormatWriter writer = metricsWriter(formats,
                    req.headers().first(HeaderNames.ACCEPT).orElse(null));
            ByteArrayOutputStream out = new ByteArrayOutputStream(16384);
            writer.write(out, registry.scrape());
            res.status(200).header(HeaderNames.CONTENT_TYPE.defaultCase(), writer.getContentType())
                    .send(out.toByteArray());
        });
    }

    /** {@code GET /healthz} and {@code GET /readyz}: on the HTTPS listener and on the health listener alike. */
    private static void healthRoutes(HttpRouting.Builder routing, Supplier<WebhookServer> self) {
        routing.route(Method.GET, "/healthz", (req, res) -> text(res, 200, "ok\n"));
        routing.route(Method.GET, "/readyz", (req, res) -> {
            WebhookServer server = self.get();
            List<String> reasons = server == null ? List.of("starting") : server.notReadyReasons();
            if (reasons.isEmpty()) {
                text(res, 200, "ok\n");
            } else {
                text(res, 503, "not ready: " + String.join("; ", reasons) + "\n");
            }
        });
    }

    /**
     * The client's writer for {@code accept}: OpenMetrics 1.0 when asked for, else the text format 0.0.4. The
     * protobuf format needs a module this server does not ship; a scraper that prefers it (Prometheus with native
     * histograms) gets what else it accepts.
     */
    static ExpositionFormatWriter metricsWriter(ExpositionFormats formats, String accept) {
        ExpositionFormatWriter writer = formats.findWriter(accept);
        if (writer.isAvailable()) {
            return writer;
        }
        return formats.getOpenMetricsTextFormatWriter().accepts(accept)
                ? formats.getOpenMetricsTextFormatWriter() : formats.getPrometheusTextFormatWriter();
    }

    private static void admission(Webhook webhook, ServerRequest req, ServerResponse res, AdmissionHandler handler,
                                  long maxBodyBytes, boolean clientCertificateRequired) {
        if (clientCertificateRequired && req.remotePeer().tlsCertificates().map(c -> c.length == 0).orElse(true)) {
            send(res, handler.rejected(webhook, 403, "client-certificate-required",
                    "this webhook verifies client certificates (--tls-client-ca), and the connection presented"
                            + " none; configure the API server's admission client certificate for this webhook"),
                    !drain(req, drainLimit(maxBodyBytes)));
            return;
        }
        OptionalLong declared = req.headers().contentLength();
        if (declared.isPresent() && declared.getAsLong() > maxBodyBytes) {
            boolean drained = declared.getAsLong() <= drainLimit(maxBodyBytes) && drain(req, drainLimit(maxBodyBytes));
            send(res, handler.payloadTooLarge(webhook, maxBodyBytes), !drained);
            return;
        }
        BodyRead body;
        try {
            body = req.content().hasEntity()
                    ? readAtMost(req.content().inputStream(), maxBodyBytes, drainLimit(maxBodyBytes), declared)
                    : new BodyRead.Complete(new byte[0]);
        } catch (IOException | RuntimeException e) {
            // RuntimeException too: a malformed chunk size surfaces from Helidon's decoder as NumberFormatException,
            // which would otherwise become Helidon's 500
            send(res, handler.rejected(webhook, 400, "bad-request",
                    "the request body could not be read to its end (" + e.getClass().getSimpleName() + ")"), true);
            return;
        }
        switch (body) {
            case BodyRead.Complete complete -> {
                // the review's log line is written once the answer is on its way, not while the API server waits
                AdmissionHandler.Answered answered = handler.answer(webhook, complete.bytes());
                try {
                    send(res, answered.answer(), false);
                } finally {
                    answered.writeLog();
                }
            }
            case BodyRead.TooLarge tooLarge -> send(res, handler.payloadTooLarge(webhook, maxBodyBytes),
                    !tooLarge.drained());
        }
    }

    /** A request body: read whole, or over the limit (and then whether the rest was read to its end). */
    sealed interface BodyRead {
        record Complete(byte[] bytes) implements BodyRead {
        }

        record TooLarge(boolean drained) implements BodyRead {
        }
    }

    /**
     * Reads the whole stream when it holds at most {@code max} bytes. Past that, keeps reading and discarding up
     * to {@code drainLimit} bytes in all, so the client can read the 413.
     */
    static BodyRead readAtMost(InputStream in, long max, long drainLimit) throws IOException {
        return readAtMost(in, max, drainLimit, OptionalLong.empty());
    }

    /**
     * {@link #readAtMost(InputStream, long, long)} for a body whose {@code Content-Length} is {@code declared}: one
     * array of exactly that size instead of a growing buffer and a copy (the body of every review). Should the
     * stream hold more than declared, the rest is read as if nothing had been declared.
     */
    static BodyRead readAtMost(InputStream in, long max, long drainLimit, OptionalLong declared) throws IOException {
        if (declared.isPresent() && declared.getAsLong() <= max) {
            byte[] bytes = in.readNBytes((int) declared.getAsLong());
            int next = in.read();
            if (next == -1) {
                return new BodyRead.Complete(bytes);
            }
            InputStream read = new SequenceInputStream(new ByteArrayInputStream(bytes),
                    new ByteArrayInputStream(new byte[] {(byte) next}));
            return readAtMost(new SequenceInputStream(read, in), max, drainLimit, OptionalLong.empty());
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        byte[] buffer = new byte[16384];
        long total = 0;
        int n;
        while ((n = in.read(buffer)) != -1) {
            total += n;
            if (total > max) {
                while (total <= drainLimit && (n = in.read(buffer)) != -1) {
                    total += n;
                }
                return new BodyRead.TooLarge(total <= drainLimit);
            }
            out.write(buffer, 0, n);
        }
        return new BodyRead.Complete(out.toByteArray());
    }

    /**
     * How much of a refused body is still read and thrown away, so that a client that writes its whole body
     * before reading sees the answer instead of a reset connection. Beyond it, the connection is closed.
     */
    static long drainLimit(long maxBodyBytes) {
        return Math.max(32L * 1024 * 1024, 2 * maxBodyBytes);
    }

    /** Reads and discards the rest of the body, up to {@code limit} bytes in all; whether it reached the end. */
    private static boolean drain(ServerRequest req, long limit) {
        if (!req.content().hasEntity()) {
            return true;
        }
        try {
            InputStream in = req.content().inputStream();
            byte[] buffer = new byte[16384];
            long total = 0;
            int n;
            while ((n = in.read(buffer)) != -1) {
                total += n;
                if (total > limit) {
                    return false;
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static void send(ServerResponse res, AdmissionAnswer answer, boolean closeConnection) {
        res.status(answer.status()).header(HeaderNames.CONTENT_TYPE.defaultCase(), AdmissionAnswer.CONTENT_TYPE);
        if (closeConnection) {
            res.header(HeaderNames.CONNECTION.defaultCase(), "close");
        }
        res.send(answer.body());
    }

    private static void text(ServerResponse res, int status, String body) {
        res.status(status).header(HeaderNames.CONTENT_TYPE.defaultCase(), "text/plain; charset=utf-8")
                .send(body.getBytes(StandardCharsets.UTF_8));
    }

    private static List<X509Certificate> readClientCas(Path file) {
        try {
            return Pem.certificates(Files.readString(file, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new IllegalStateException("cannot start: the client CA file " + file + " cannot be read ("
                    + e.getClass().getSimpleName() + ")", e);
        } catch (Pem.PemException e) {
            throw new IllegalStateException("cannot start: the client CA file " + file + " " + e.getMessage(), e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
