package io.kvcacheinjector.adapters.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.testing.Await;
import io.kvcacheinjector.adapters.http.testing.RawHttps;
import io.kvcacheinjector.adapters.http.testing.Reviews;
import io.kvcacheinjector.adapters.http.testing.TestPki;
import io.kvcacheinjector.adapters.http.testing.TestServer;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;

/**
 * Graceful shutdown: keep answering, not ready, for the shutdown delay; then stop accepting and finish the reviews in
 * flight (bounded by the grace period).
 */
class WebhookServerShutdownTest {
    private static final SelfSignedCertificate CERT = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
    private static final SSLContext CLIENT = TestPki.clientContext(List.of(CERT.ca()));
    /** Own threads: the common pool may have a single thread on a small machine, and a blocked client takes it. */
    private final java.util.concurrent.ExecutorService threads =
            java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();

    @org.junit.jupiter.api.AfterEach
    void closeThreads() {
        threads.shutdownNow();
    }

    private static boolean accepting(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aReviewInFlightWhenShutdownBeginsIsAnsweredWhileNewConnectionsAreRefused() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        TestServer server = new TestServer(new ServerTls.Generated(CERT, Optional.empty()),
                TestServer.settings().withShutdownGrace(Duration.ofSeconds(30)));
        server.fakes.kvCacheMutate = pod -> {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Decision.Refuse(ReasonCode.BINDING_NOT_FOUND, "binding-not-found: team-a/pool-binding");
        };
        int port = server.port();

        try (RawHttps inFlight = new RawHttps(CLIENT, port)) {
            CompletableFuture<RawHttps.Response> answer = CompletableFuture.supplyAsync(() -> {
                try {
                    return inFlight.post("/kvcache/mutate", Reviews.bytes(Reviews.create("in-flight",
                            Reviews.optedInPod())));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, threads);
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

            CompletableFuture<Void> shutdown = CompletableFuture.runAsync(server.server::shutdown, threads);
            Await.until(() -> !accepting(port));
            assertThat(server.server.ready()).isFalse();
            assertThat(server.server.notReadyReasons()).contains("shutting down");
            assertThat(shutdown).isNotDone();

            release.countDown();

            RawHttps.Response r = answer.get(30, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(200);
            assertThat(Reviews.response(r.body())).containsEntry("uid", "in-flight").containsEntry("allowed", false)
                    .containsEntry("auditAnnotations", Map.of("refusal", "binding-not-found"));
            shutdown.get(30, TimeUnit.SECONDS);
        }
        assertThat(server.log).anySatisfy(l -> assertThat(l).contains("\"event\":\"server-stopped\""));
    }

    @Test
    void idleKeepAliveConnectionsDoNotHoldShutdownForTheWholeGracePeriod() throws Exception {
        TestServer server = new TestServer(new ServerTls.Generated(CERT, Optional.empty()),
                TestServer.settings().withShutdownGrace(Duration.ofMinutes(10)));
        try (RawHttps idle = new RawHttps(CLIENT, server.port())) {
            assertThat(idle.get("/healthz").status()).isEqualTo(200);

            CompletableFuture<Void> shutdown = CompletableFuture.runAsync(server.server::shutdown, threads);

            // a ten-minute grace period, yet an idle connection is closed and shutdown completes
            shutdown.get(60, TimeUnit.SECONDS);
            assertThat(idle.closedByServer()).isTrue();
        }
    }

    @Test
    void aReviewThatOutlastsTheGracePeriodDoesNotKeepTheServerFromStopping() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        TestServer server = new TestServer(new ServerTls.Generated(CERT, Optional.empty()),
                TestServer.settings().withShutdownGrace(Duration.ofMillis(300)));
        server.fakes.kvCacheMutate = pod -> {
            entered.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Decision.Admit.unchanged();
        };
        try (RawHttps stuck = new RawHttps(CLIENT, server.port())) {
            CompletableFuture.runAsync(() -> {
                try {
                    stuck.post("/kvcache/mutate", Reviews.bytes(Reviews.create("stuck", Reviews.optedInPod())));
                } catch (IOException e) {
                    // the connection is cut at the end of the grace period
                }
            }, threads);
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

            CompletableFuture.runAsync(server.server::shutdown, threads).get(60, TimeUnit.SECONDS);

            assertThat(accepting(server.port())).isFalse();
        } finally {
            never.countDown();
        }
    }

    @Test
    void duringTheShutdownDelayNewConnectionsAreStillAnsweredWhileReadyzSaysShuttingDown() throws Exception {
        CountDownLatch delayBegan = new CountDownLatch(1);
        CountDownLatch delayEnds = new CountDownLatch(1);
        TestServer server = new TestServer(new ServerTls.Generated(CERT, Optional.empty()),
                TestServer.settings().withShutdownDelay(Duration.ofMinutes(10)));
        server.fakes.kvCacheMutate = pod -> new Decision.Refuse(ReasonCode.BINDING_NOT_FOUND,
                "binding-not-found: team-a/pool-binding");
        int port = server.port();
        try (RawHttps keptAlive = new RawHttps(CLIENT, port)) {
            assertThat(keptAlive.get("/healthz").status()).isEqualTo(200);

            // the delay is a wait this test ends, so that nothing here depends on how long anything takes
            CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> server.server.shutdown(delay -> {
                assertThat(delay).isEqualTo(Duration.ofMinutes(10));
                delayBegan.countDown();
                delayEnds.await();
                return Optional.empty();
            }), threads);
            assertThat(delayBegan.await(30, TimeUnit.SECONDS)).isTrue();

            try (RawHttps fresh = new RawHttps(CLIENT, port)) {
                RawHttps.Response readyz = fresh.get("/readyz");
                assertThat(readyz.status()).isEqualTo(503);
                assertThat(readyz.text()).contains("shutting down");
            }
            try (RawHttps fresh = new RawHttps(CLIENT, port)) {
                RawHttps.Response r = fresh.post("/kvcache/mutate", Reviews.bytes(Reviews.create("during-delay",
                        Reviews.optedInPod())));
                assertThat(r.status()).isEqualTo(200);
                assertThat(Reviews.response(r.body())).containsEntry("uid", "during-delay")
                        .containsEntry("allowed", false)
                        .containsEntry("auditAnnotations", Map.of("refusal", "binding-not-found"));
                // the client's next review goes through the Service again, to a replica that is not stopping
                assertThat(r.header("connection")).isEqualToIgnoringCase("close");
            }
            try (RawHttps fresh = new RawHttps(CLIENT, port)) {
                assertThat(fresh.get("/healthz").status()).isEqualTo(200);
            }
            // a connection opened before the stop is answered too, and told to close
            RawHttps.Response onOld = keptAlive.get("/healthz");
            assertThat(onOld.status()).isEqualTo(200);
            assertThat(onOld.header("connection")).isEqualToIgnoringCase("close");
            assertThat(stop).isNotDone();
            assertThat(server.log).anySatisfy(l -> assertThat(l).contains("\"event\":\"shutdown-delay-started\"")
                    .contains("\"delaySeconds\":600,"));
            assertThat(server.log).noneSatisfy(l -> assertThat(l).contains("\"event\":\"server-stopping\""));

            delayEnds.countDown();

            stop.get(60, TimeUnit.SECONDS);
            assertThat(accepting(port)).isFalse();
            assertThat(server.log).anySatisfy(l -> assertThat(l).contains("\"event\":\"shutdown-delay-ended\"")
                    .contains("\"endedBy\":\"elapsed\""));
            assertThat(server.log).anySatisfy(l -> assertThat(l).contains("\"event\":\"server-stopped\""));
        }
    }

    @Test
    void aDelayThatElapsesOnItsOwnEndsInTheGracefulStop() throws Exception {
        TestServer server = new TestServer(new ServerTls.Generated(CERT, Optional.empty()),
                TestServer.settings().withShutdownDelay(Duration.ofMillis(200)));

        CompletableFuture.runAsync(() -> server.server.shutdown(WebhookServer.DelayWait.sleeping()), threads)
                .get(60, TimeUnit.SECONDS);

        assertThat(accepting(server.port())).isFalse();
        assertThat(server.log).anySatisfy(l -> assertThat(l).contains("\"event\":\"shutdown-delay-ended\"")
                .contains("\"endedBy\":\"elapsed\""));
    }

    @Test
    void aWaitCutShortStopsAtOnceAndSaysWhy() throws Exception {
        TestServer server = new TestServer(new ServerTls.Generated(CERT, Optional.empty()),
                TestServer.settings().withShutdownDelay(Duration.ofHours(1)));

        CompletableFuture.runAsync(() -> server.server.shutdown(delay -> Optional.of("SIGINT")), threads)
                .get(60, TimeUnit.SECONDS);

        assertThat(accepting(server.port())).isFalse();
        assertThat(server.log).anySatisfy(l -> assertThat(l).contains("\"event\":\"shutdown-delay-ended\"")
                .contains("\"endedBy\":\"SIGINT\""));
    }

    @Test
    void aZeroDelayStopsAsBeforeWithoutDelayLines() throws Exception {
        TestServer server = new TestServer(new ServerTls.Generated(CERT, Optional.empty()),
                TestServer.settings().withShutdownDelay(Duration.ZERO));

        CompletableFuture.runAsync(() -> server.server.shutdown(delay -> {
            throw new AssertionError("no delay to wait for");
        }), threads).get(60, TimeUnit.SECONDS);

        assertThat(accepting(server.port())).isFalse();
        assertThat(server.log).noneSatisfy(l -> assertThat(l).contains("shutdown-delay"));
    }
}
