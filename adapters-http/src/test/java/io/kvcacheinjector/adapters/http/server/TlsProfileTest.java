package io.kvcacheinjector.adapters.http.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvcacheinjector.adapters.http.testing.CertDir;
import io.kvcacheinjector.adapters.http.testing.TestPki;
import io.kvcacheinjector.adapters.http.testing.TestServer;
import io.kvcacheinjector.adapters.http.tls.Pem;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS profile on the wire: real handshakes over loopback from the JDK's client, each offering only what it tests,
 * against a server with the generated (ECDSA) certificate, with an RSA certificate, and after a reload from one to
 * the other. tools/tls-scan runs a real scanner against {@code serve} as well.
 */
class TlsProfileTest {
    private static final String TLS12 = "TLSv1.2";
    private static final String TLS13 = "TLSv1.3";

    @TempDir
    Path dir;

    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** A server with a certificate of {@code keys}' type, from files; the certificate clients are to trust. */
    private X509Certificate serveFiles(KeyPair keys, TlsProfile profile) throws Exception {
        CertDir certs = new CertDir(dir);
        X509Certificate cert = certs.rotate(keys, "profile-" + keys.getPublic().getAlgorithm());
        server = new TestServer(new ServerTls.FromFiles(certs.files()), TestServer.settings().withTlsProfile(profile));
        return cert;
    }

    /**
     * A handshake offering only {@code protocol}, {@code suite} (null: the JDK's defaults) and {@code group} (null:
     * the JDK's defaults); the suite negotiated. Throws when the server refuses.
     */
    private static String handshake(SSLContext ctx, int port, String protocol, String suite, String group)
            throws IOException {
        try (SSLSocket s = socket(ctx, port, protocol, suite, group)) {
            return s.getSession().getCipherSuite();
        }
    }

    private static SSLSocket socket(SSLContext ctx, int port, String protocol, String suite, String group)
            throws IOException {
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port);
        s.setSoTimeout(30_000);
        SSLParameters p = s.getSSLParameters();
        p.setProtocols(new String[]{protocol});
        if (suite != null) {
            p.setCipherSuites(new String[]{suite});
        }
        if (group != null) {
            p.setNamedGroups(new String[]{group});
        }
        s.setSSLParameters(p);
        try {
            s.startHandshake();
        } catch (IOException e) {
            s.close();
            throw e;
        }
        return s;
    }

    /** {@code GET /healthz} on the connection, its response read whole; the status. */
    private static int healthz(SSLSocket s) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = s.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b == -1) {
                throw new IOException("the connection closed before the end of the response's head");
            }
            head.append((char) b);
        }
        Matcher length = Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        if (length.find()) {
            in.readNBytes(Integer.parseInt(length.group(1)));
        }
        return Integer.parseInt(head.substring(9, 12));
    }

    @Test
    void withTheGeneratedEcdsaCertificateTls12TakesGcmAndChaChaAndRefusesCbc() throws Exception {
        SelfSignedCertificate cert = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
        server = new TestServer(new ServerTls.Generated(cert, Optional.empty()), TestServer.settings());
        SSLContext ctx = TestPki.clientContext(List.of(cert.ca()));
        assertTls12(ctx, List.of("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
                "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"),
                List.of("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
                        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384"));
    }

    /** Each of {@code accepted}, offered alone over TLS 1.2, is negotiated; each of {@code refused} fails. */
    private void assertTls12(SSLContext ctx, List<String> accepted, List<String> refused) throws IOException {
        for (String suite : accepted) {
            assertThat(handshake(ctx, server.port(), TLS12, suite, null)).isEqualTo(suite);
        }
        for (String suite : refused) {
            assertThatThrownBy(() -> handshake(ctx, server.port(), TLS12, suite, null))
                    .as(suite).isInstanceOf(SSLException.class);
        }
    }

    @Test
    void withAnRsaCertificateTls12TakesEcdheGcmAndRefusesCbcAndDhe() throws Exception {
        X509Certificate cert = serveFiles(TestPki.rsa(), TlsProfile.INTERMEDIATE);
        SSLContext ctx = TestPki.clientContext(List.of(cert));
        assertTls12(ctx, List.of("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
                "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"),
                List.of("TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384",
                        "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256", "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256",
                        "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256"));
    }

    @Test
    void tls13TakesItsThreeSuites() throws Exception {
        X509Certificate cert = serveFiles(TestPki.rsa(), TlsProfile.INTERMEDIATE);
        SSLContext ctx = TestPki.clientContext(List.of(cert));
        for (String suite : TlsProfile.TLS13_SUITES) {
            assertThat(handshake(ctx, server.port(), TLS13, suite, null)).isEqualTo(suite);
        }
    }

    @Test
    void theGroupsAreX25519P256AndP384Only() throws Exception {
        // an RSA certificate: under TLS 1.2 a P-256 ECDSA certificate also needs P-256 among the client's groups
        X509Certificate cert = serveFiles(TestPki.rsa(), TlsProfile.INTERMEDIATE);
        SSLContext ctx = TestPki.clientContext(List.of(cert));
        for (String protocol : List.of(TLS12, TLS13)) {
            for (String group : List.of("x25519", "secp256r1", "secp384r1")) {
                assertThat(handshake(ctx, server.port(), protocol, null, group)).as(protocol + " " + group)
                        .isNotEmpty();
            }
            for (String group : List.of("x448", "secp521r1", "ffdhe2048")) {
                assertThatThrownBy(() -> handshake(ctx, server.port(), protocol, null, group))
                        .as(protocol + " " + group).isInstanceOf(SSLException.class);
            }
        }
    }

    @Test
    void aClientInitiatedRenegotiationIsRefusedAndEndsTheConnection() throws Exception {
        SelfSignedCertificate cert = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
        server = new TestServer(new ServerTls.Generated(cert, Optional.empty()), TestServer.settings());
        SSLContext ctx = TestPki.clientContext(List.of(cert.ca()));
        try (SSLSocket s = socket(ctx, server.port(), TLS12, null, null)) {
            assertThat(healthz(s)).isEqualTo(200);
            AtomicInteger handshakes = new AtomicInteger();
            s.addHandshakeCompletedListener(e -> handshakes.incrementAndGet());
            // on an established TLS 1.2 connection, a second startHandshake sends a new ClientHello: renegotiation;
            // the server answers it with a fatal alert
            assertThatThrownBy(() -> {
                s.startHandshake();
                healthz(s);
                healthz(s);
            }).isInstanceOf(SSLException.class).hasMessageContaining("handshake_failure");
            assertThat(handshakes).hasValue(0);
        }
    }

    @Test
    void modernRefusesTls12AndServesTls13() throws Exception {
        X509Certificate cert = serveFiles(TestPki.ec(), TlsProfile.MODERN);
        SSLContext ctx = TestPki.clientContext(List.of(cert));
        assertThatThrownBy(() -> handshake(ctx, server.port(), TLS12, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", null))
                .isInstanceOf(SSLException.class);
        assertThat(handshake(ctx, server.port(), TLS13, null, null)).isEqualTo("TLS_AES_256_GCM_SHA384");
    }

    @Test
    void aReloadFromAnEcdsaToAnRsaCertificateKeepsTheProfile() throws Exception {
        CertDir certs = new CertDir(dir);
        X509Certificate ecCert = certs.rotate(TestPki.ec(), "before");
        server = new TestServer(new ServerTls.FromFiles(certs.files()), TestServer.settings());
        KeyPair rsa = TestPki.rsa();
        X509Certificate rsaCert = TestPki.selfSigned(rsa, "after");
        SSLContext ctx = TestPki.clientContext(List.of(ecCert, rsaCert));
        assertThat(handshake(ctx, server.port(), TLS12, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", null)).isNotEmpty();

        certs.rotate(Pem.write(List.of(rsaCert)), Pem.write(rsa.getPrivate()));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (server.log.stream().noneMatch(l -> l.contains("\"event\":\"tls-reloaded\""))) {
            assertThat(System.nanoTime()).as("reloaded in 30 s").isLessThan(deadline);
            Thread.sleep(20);
        }

        assertThat(handshake(ctx, server.port(), TLS12, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", null))
                .isEqualTo("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
        assertThatThrownBy(() -> handshake(ctx, server.port(), TLS12, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", null))
                .isInstanceOf(SSLException.class);
        assertThatThrownBy(() -> handshake(ctx, server.port(), TLS12, null, "secp521r1"))
                .isInstanceOf(SSLException.class);
    }

    @Test
    void theFlagNamesAProfileAndNothingElse() {
        assertThat(TlsProfile.of("intermediate")).isEqualTo(TlsProfile.INTERMEDIATE);
        assertThat(TlsProfile.of(" Modern ")).isEqualTo(TlsProfile.MODERN);
        assertThatThrownBy(() -> TlsProfile.of("old")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--tls-profile must be intermediate");
        assertThat(TlsProfile.MODERN.cipherSuites()).containsExactlyElementsOf(TlsProfile.TLS13_SUITES);
        assertThat(System.getProperty(TlsProfile.REJECT_CLIENT_RENEGOTIATION)).isEqualTo("true");
    }
}
