package io.kvcacheinjector.adapters.http.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvcacheinjector.adapters.http.testing.RawHttps;
import io.kvcacheinjector.adapters.http.testing.Reviews;
import io.kvcacheinjector.adapters.http.testing.TestPki;
import io.kvcacheinjector.adapters.http.testing.TestServer;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.domain.cluster.SyncState;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code --health-port}: the kubelet's probes over plain HTTP on a port of their own, so that a probe costs no TLS
 * handshake (issue 32). The port answers {@code /healthz} and {@code /readyz} exactly as the HTTPS port does, and
 * nothing else: no review and no metric is ever reachable without TLS.
 */
class WebhookServerHealthPortTest {
    private static final SelfSignedCertificate CERT = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
    private static final SSLContext TLS_CLIENT = TestPki.clientContext(List.of(CERT.ca()));
    private static final HttpClient PLAIN = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static TestServer server;

    @BeforeAll
    static void start() {
        server = new TestServer(new ServerTls.Generated(CERT, Optional.empty()),
                TestServer.settings().withHealthPort(OptionalInt.of(0)));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static HttpResponse<String> plain(String method, int port, String path) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10));
        request = method.equals("GET") ? request.GET()
                : request.method(method, HttpRequest.BodyPublishers.ofByteArray(
                        Reviews.bytes(Reviews.create("over-plain-http", Reviews.optedInPod()))));
        return PLAIN.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int healthPort() {
        return server.server.healthPort().orElseThrow();
    }

    @Test
    void healthzAndReadyzAnswerOverPlainHttpAsOnTheHttpsPort() throws Exception {
        assertThat(healthPort()).isPositive().isNotEqualTo(server.port());
        HttpResponse<String> healthz = plain("GET", healthPort(), "/healthz");
        assertThat(healthz.statusCode()).isEqualTo(200);
        assertThat(healthz.body()).isEqualTo("ok\n");
        assertThat(plain("GET", healthPort(), "/readyz").statusCode()).isEqualTo(200);
        try (RawHttps https = new RawHttps(TLS_CLIENT, server.port())) {
            assertThat(https.get("/readyz").status()).as("the HTTPS port still answers probes").isEqualTo(200);
        }

        server.sync.set(new SyncState.NotSynced("KVCachePoolBinding informer has not listed yet"));
        try {
            HttpResponse<String> notReady = plain("GET", healthPort(), "/readyz");
            assertThat(notReady.statusCode()).isEqualTo(503);
            assertThat(notReady.body()).isEqualTo("not ready: the cluster view has not synced: KVCachePoolBinding"
                    + " informer has not listed yet\n");
        } finally {
            server.sync.set(SyncState.synced());
        }
    }

    @Test
    void noReviewAndNoMetricIsServedWithoutTls() throws Exception {
        for (Webhook webhook : Webhook.values()) {
            HttpResponse<String> r = plain("POST", healthPort(), "/" + webhook.path());
            assertThat(r.statusCode()).as("POST /%s on the health port", webhook.path()).isEqualTo(404);
        }
        assertThat(plain("GET", healthPort(), "/metrics").statusCode()).isEqualTo(404);
        assertThat(server.fakes.calls).as("no use case was called").isEmpty();
    }

    @Test
    void duringTheShutdownDelayTheHealthPortSaysNotReadyUntilTheServerStops() throws Exception {
        TestServer stopping = new TestServer(new ServerTls.Generated(CERT, Optional.empty()),
                TestServer.settings().withHealthPort(OptionalInt.of(0)).withShutdownDelay(Duration.ofMinutes(1)));
        int port = stopping.server.healthPort().orElseThrow();
        CountDownLatch delayStarted = new CountDownLatch(1);
        CountDownLatch endDelay = new CountDownLatch(1);
        CompletableFuture<Void> shutdown = CompletableFuture.runAsync(() -> stopping.server.shutdown(delay -> {
            delayStarted.countDown();
            endDelay.await();
            return Optional.of("test");
        }));
        try {
            assertThat(delayStarted.await(30, TimeUnit.SECONDS)).isTrue();
            HttpResponse<String> r = plain("GET", port, "/readyz");
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).isEqualTo("not ready: shutting down\n");
            assertThat(plain("GET", port, "/healthz").statusCode()).as("alive while it drains").isEqualTo(200);
        } finally {
            endDelay.countDown();
            shutdown.get(60, TimeUnit.SECONDS);
        }
        assertThatThrownBy(() -> plain("GET", port, "/healthz")).as("the health port closes with the server")
                .isInstanceOf(IOException.class);
    }

    @Test
    void aHealthPortInUseStopsTheStartNamingBothPortsAndTheFlags() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> new TestServer(new ServerTls.Generated(CERT, Optional.empty()),
                    TestServer.settings().withHealthPort(OptionalInt.of(taken.getLocalPort()))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot start: could not listen on 127.0.0.1:")
                    .hasMessageContaining(":" + taken.getLocalPort())
                    .hasMessageContaining("free the port or choose another with --port or --health-port");
        }
    }

    @Test
    void theHealthPortMustDifferFromTheHttpsPort() {
        assertThatThrownBy(() -> TestServer.settings().withPort(8443).withHealthPort(OptionalInt.of(8443)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the health port must differ from the HTTPS port 8443");
    }
}
