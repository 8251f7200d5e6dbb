package io.kvcacheinjector.adapters.http.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.server.ServerTls;
import io.kvcacheinjector.adapters.http.testing.RawHttps;
import io.kvcacheinjector.adapters.http.testing.Reviews;
import io.kvcacheinjector.adapters.http.testing.TestPki;
import io.kvcacheinjector.adapters.http.testing.TestServer;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Connections that lie, stall, give up or are not HTTP at all, against the real server. None of them may get a 500,
 * hold up the reviews of other clients, or reach a use case with a partial body; after each, a fresh connection
 * still gets its review answered.
 */
class HostileConnectionsTest {
    private static final SelfSignedCertificate CERT = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
    private static final int READ_TIMEOUT_MILLIS = 20_000;
    private static TestServer server;
    private static SSLContext client;

    @BeforeAll
    static void start() {
        server = new TestServer(new ServerTls.Generated(CERT, Optional.empty()), TestServer.settings());
        client = TestPki.clientContext(List.of(CERT.ca()));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void reset() {
        server.fakes.calls.clear();
    }

    @AfterEach
    void aFreshConnectionIsStillServed() throws IOException {
        try (RawHttps c = new RawHttps(client, server.port())) {
            RawHttps.Response r = c.post("/kvcache/mutate", review("uid-after"));
            assertThat(r.status()).isEqualTo(200);
            assertThat(Reviews.response(r.body())).containsEntry("uid", "uid-after");
        }
    }

    private static byte[] review(String uid) {
        return Reviews.bytes(Reviews.create(uid, Reviews.optedInPod()));
    }

    private static TlsWire wire() throws IOException {
        return new TlsWire(client, server.port(), READ_TIMEOUT_MILLIS);
    }

    private static String head(int contentLength) {
        return "POST /kvcache/mutate HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + contentLength + "\r\n\r\n";
    }

    @Test
    void clientsThatPromiseMoreBodyThanTheySendDoNotHoldUpOtherReviews() throws Exception {
        List<TlsWire> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                stalled.add(wire().write(head(100_000)).write("{\"apiVersion\":"));
            }
            try (RawHttps c = new RawHttps(client, server.port())) {
                for (int i = 0; i < 20; i++) {
                    RawHttps.Response r = c.post("/kvcache/mutate", review("uid-" + i));
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(Reviews.response(r.body())).containsEntry("uid", "uid-" + i);
                }
            }
            assertThat(server.fakes.calls).as("only the complete reviews reached the use case").hasSize(20);
        } finally {
            for (TlsWire w : stalled) {
                w.close();
            }
        }
        assertThat(server.fakes.calls).as("a partial body never reaches a use case").hasSize(20);
    }

    @Test
    void aClientThatGivesUpMidBodyGetsA400OrAClosedConnectionAndNoUseCaseRuns() throws Exception {
        byte[] body = review("uid-half");
        try (TlsWire w = wire()) {
            w.write(head(body.length)).write(java.util.Arrays.copyOf(body, body.length / 2));
            w.shutdownOutput();
            TlsWire.Answer a = w.read();
            if (!a.closedWithoutAnswer()) {
                assertThat(a.status()).isEqualTo(400);
                assertThat(a.body()).contains("\"error\":\"bad-request\"").contains("could not be read to its end");
            }
        }
        assertThat(server.fakes.calls).isEmpty();
    }

    @Test
    void aBodyLongerThanItsContentLengthIsCutThereAndTheRestIsNotAReview() throws Exception {
        byte[] body = review("uid-long");
        try (TlsWire w = wire()) {
            // the blank line after the body ends what the server will take as the next request's head
            w.write(head(20)).write(body).write("\r\n\r\n");
            TlsWire.Answer first = w.read();
            assertThat(first.status()).isEqualTo(400);
            assertThat(first.body()).contains("\"error\":\"bad-request\"").contains("not valid JSON");
            // what follows the declared length is read as the next request: its "request line" is JSON, refused
            TlsWire.Answer second = w.read();
            assertThat(second.closedWithoutAnswer() || second.status() == 400)
                    .as("the rest answered %s", second.head()).isTrue();
        }
        assertThat(server.fakes.calls).isEmpty();
    }

    @Test
    void anAbsurdContentLengthIs413AtOnceAndTheConnectionIsClosed() throws Exception {
        try (TlsWire w = wire()) {
            w.write("POST /kvcache/mutate HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10737418240\r\n\r\n");
            TlsWire.Answer a = w.read();
            assertThat(a.status()).isEqualTo(413);
            assertThat(a.body()).contains("\"error\":\"payload-too-large\"");
            assertThat(TlsWire.header(a.head(), "connection")).contains("close");
        }
    }

    @Test
    void malformedFramingIsRefusedWithoutA500() throws Exception {
        List<String> heads = List.of(
                "POST /kvcache/mutate HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n{}",
                "POST /kvcache/mutate HTTP/1.1\r\nHost: localhost\r\nContent-Length: -5\r\n\r\n{}",
                "POST /kvcache/mutate HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
                "POST /kvcache/mutate HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
                "POST /kvcache/mutate HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "FFFFFFFFFFFFFFFFFFFF\r\n{}\r\n0\r\n\r\n",
                "POST /kvcache/mutate HTTP/9.9\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}",
                "POST /kvcache/mutate HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "x".repeat(100_000) + "\r\n\r\n");
        for (String h : heads) {
            try (TlsWire w = wire()) {
                try {
                    w.write(h);
                } catch (IOException e) {
                    // refused and closed while the rest was still being written: read what was answered
                }
                TlsWire.Answer a = w.read();
                String shown = h.substring(0, Math.min(60, h.length())).replace("\r\n", "\\r\\n");
                assertThat(a.closedWithoutAnswer() || (a.status() >= 400 && a.status() < 500))
                        .as("%s answered %s", shown, a.head()).isTrue();
            }
        }
        assertThat(server.fakes.calls).isEmpty();
    }

    /**
     * Control characters where the request line or a header name belongs are refused by Helidon's HTTP/1 parser
     * before any route runs. Helidon answers some of them with its own 500 ({@code Internal error}, from an
     * IllegalArgumentException of its token check): no admission is involved, and the server stays up. Listed as a
     * limit in docs/explanation/reliability.md; the assertion accepts 400 so that a fix does not break this test.
     */
    @Test
    void controlCharactersInTheRequestLineOrAHeaderNameNeverReachAnAdmissionRoute() throws Exception {
        List<String> heads = List.of(
                "\u0000\u0001\u0002 garbage \u00ff\r\n\r\n",
                "PO\u0001ST /kvcache/mutate HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}",
                "POST /kvcache/mutate\u0001 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}",
                "POST /kvcache/mutate HTTP/1.1\r\nHost: localhost\r\nX-\u0001: v\r\nContent-Length: 2\r\n\r\n{}",
                "POST /kvcache/mutate HTTP/1.1\r\nHost: localhost\r\nX-A: \u0001\u007f\r\nContent-Length: 2\r\n\r\n{}");
        for (String h : heads) {
            try (TlsWire w = wire()) {
                w.write(h);
                TlsWire.Answer a = w.read();
                String shown = h.substring(0, Math.min(60, h.length())).replace("\r\n", "\\r\\n");
                System.out.println("control characters " + shown.replaceAll("\\p{Cntrl}", "?") + ": "
                        + (a.closedWithoutAnswer() ? "closed" : a.head().lines().findFirst().orElse("")));
                assertThat(a.closedWithoutAnswer() || a.status() == 400 || a.status() == 500)
                        .as("%s answered %s", shown, a.head()).isTrue();
            }
        }
        assertThat(server.fakes.calls).isEmpty();
    }

    @Test
    void pipelinedReviewsAreAnsweredInOrder() throws Exception {
        byte[] one = review("uid-one");
        byte[] two = review("uid-two");
        try (TlsWire w = wire()) {
            w.write(head(one.length)).write(one).write(head(two.length)).write(two);
            TlsWire.Answer a = w.read();
            TlsWire.Answer b = w.read();
            assertThat(a.status()).isEqualTo(200);
            assertThat(a.body()).contains("\"uid\":\"uid-one\"");
            assertThat(b.status()).isEqualTo(200);
            assertThat(b.body()).contains("\"uid\":\"uid-two\"");
        }
    }

    @Test
    void plainTextAndRandomBytesOnTheTlsPortAreDropped() throws Exception {
        Random random = new Random(9);
        List<byte[]> payloads = new ArrayList<>();
        payloads.add(("POST /kvcache/mutate HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}")
                .getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < 5; i++) {
            byte[] noise = new byte[1 + random.nextInt(4096)];
            random.nextBytes(noise);
            payloads.add(noise);
        }
        // a TLS record header claiming a handshake of 16 MiB, then nothing
        payloads.add(new byte[]{0x16, 0x03, 0x01, (byte) 0xFF, (byte) 0xFF, 0x01, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
        for (byte[] payload : payloads) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
                s.setSoTimeout(READ_TIMEOUT_MILLIS);
                s.getOutputStream().write(payload);
                s.getOutputStream().flush();
                s.shutdownOutput();
                InputStream in = s.getInputStream();
                byte[] reply = in.readNBytes(64 * 1024);
                // whatever comes back (nothing, or a TLS alert record) is not an HTTP answer
                assertThat(new String(reply, StandardCharsets.ISO_8859_1)).doesNotContain("HTTP/1.1");
            } catch (java.net.SocketException e) {
                // a reset is a drop too
            }
        }
        assertThat(server.fakes.calls).isEmpty();
    }
}
