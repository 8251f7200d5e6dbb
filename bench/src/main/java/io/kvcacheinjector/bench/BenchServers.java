package io.kvcacheinjector.bench;

import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.adapters.http.server.ServerTls;
import io.kvcacheinjector.adapters.http.server.WebhookServer;
import io.kvcacheinjector.adapters.http.server.WebhookServerSettings;
import io.kvcacheinjector.adapters.http.telemetry.AdmissionMetrics;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.adapters.http.telemetry.RuntimeMetrics;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.cluster.SyncState;
import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The two servers a bench run drives, in this process, on {@code 127.0.0.1}, with one generated certificate and
 * the server's default settings: the <em>real</em> webhook over the given use cases, and the <em>baseline</em>,
 * the very same {@link WebhookServer} and {@link AdmissionHandler} (AdmissionReview decode, metrics, one JSON log
 * line, response encode) over use cases that answer {@link Decision.Admit#unchanged()} without looking at the Pod.
 * Both write their per-review log lines, formatted as {@code serve} formats them, to {@code /dev/null} (where it
 * exists; otherwise nowhere), as {@code serve} writes them to stdout.
 */
final class BenchServers implements AutoCloseable {
    private final WebhookServer real;
    private final WebhookServer baseline;
    private final SSLContext clientContext;
    private final PrintStream logSink;

    private BenchServers(WebhookServer real, WebhookServer baseline, SSLContext clientContext, PrintStream logSink) {
        this.real = real;
        this.baseline = baseline;
        this.clientContext = clientContext;
        this.logSink = logSink;
    }

    /** Use cases that admit every Pod unchanged without reading it: the baseline's. */
    static AdmissionUseCases admitEverything() {
        return new AdmissionUseCases((namespace, pod) -> Decision.Admit.unchanged(),
                (namespace, oldPod, newPod) -> Decision.Admit.unchanged(),
                (namespace, pod) -> Decision.Admit.unchanged());
    }

    /** Starts both servers; the real one first. */
    static BenchServers start(AdmissionUseCases realUseCases) {
        Clock clock = Clock.systemUTC();
        SelfSignedCertificate certificate = SelfSignedCertificate.forLocalhost(clock);
        ServerTls tls = new ServerTls.Generated(certificate, Optional.empty());
        WebhookServerSettings settings = WebhookServerSettings.defaults().withHost("127.0.0.1").withPort(0);
        PrintStream sink = logSink();
        WebhookServer real = start(settings, tls, realUseCases, sink, clock);
        WebhookServer baseline;
        try {
            baseline = start(settings, tls, admitEverything(), sink, clock);
        } catch (RuntimeException e) {
            real.shutdown();
            throw e;
        }
        return new BenchServers(real, baseline, trusting(certificate), sink);
    }

    private static WebhookServer start(WebhookServerSettings settings, ServerTls tls, AdmissionUseCases useCases,
                                       PrintStream sink, Clock clock) {
        JsonLog log = JsonLog.to(sink);
        AdmissionMetrics metrics = new AdmissionMetrics();
        AdmissionHandler handler = new AdmissionHandler(useCases, AdmissionHandler.DEFAULT_FAIL_OPEN, metrics, log);
        return WebhookServer.start(settings, tls, handler, SyncState::synced, List.of(metrics, RuntimeMetrics.standard()),
                log, clock);
    }

    private static PrintStream logSink() {
        Path devNull = Path.of("/dev/null");
        OutputStream out;
        try {
            out = Files.isWritable(devNull) ? new FileOutputStream(devNull.toFile()) : OutputStream.nullOutputStream();
        } catch (IOException e) {
            out = OutputStream.nullOutputStream();
        }
        return new PrintStream(new BufferedOutputStream(out, 8192), true, StandardCharsets.UTF_8);
    }

    /** A client TLS context that trusts exactly {@code certificate}'s CA (bench's servers and a serve under load). */
    static SSLContext trusting(SelfSignedCertificate certificate) {
        try {
            KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
            trust.load(null, null);
            trust.setCertificateEntry("bench-ca", certificate.ca());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build the bench client's TLS context: " + e.getMessage(), e);
        }
    }

    /** The port of {@code side}'s server. */
    int port(Side side) {
        return switch (side) {
            case REAL -> real.port();
            case BASELINE -> baseline.port();
        };
    }

    /** A TLS context that trusts the servers' certificate and nothing else. */
    SSLContext clientContext() {
        return clientContext;
    }

    @Override
    public void close() {
        try {
            real.shutdown();
        } finally {
            baseline.shutdown();
            logSink.close();
        }
    }
}
