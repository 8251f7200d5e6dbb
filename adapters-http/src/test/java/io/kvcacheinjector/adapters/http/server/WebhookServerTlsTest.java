package io.kvcacheinjector.adapters.http.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvcacheinjector.adapters.http.testing.Await;
import io.kvcacheinjector.adapters.http.testing.CertDir;
import io.kvcacheinjector.adapters.http.testing.RawHttps;
import io.kvcacheinjector.adapters.http.testing.Reviews;
import io.kvcacheinjector.adapters.http.testing.TestPki;
import io.kvcacheinjector.adapters.http.testing.TestServer;
import io.kvcacheinjector.adapters.http.tls.CertificateFiles;
import io.kvcacheinjector.adapters.http.tls.Pem;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Certificate files, rotation without restart, and client certificates, over real TLS. */
class WebhookServerTlsTest {
    @TempDir
    Path dir;

    private static X509Certificate presented(SSLContext ctx, int port) {
        try (RawHttps c = new RawHttps(ctx, port)) {
            return c.serverCertificate();
        } catch (Exception e) {
            return null;
        }
    }

    @Test
    void aRotatedSecretIsServedToNewConnectionsWhileAnOpenConnectionKeepsWorking() throws Exception {
        CertDir certs = new CertDir(dir);
        KeyPair oldKeys = TestPki.ec();
        X509Certificate oldCert = certs.rotate(oldKeys, "old");
        KeyPair newKeys = TestPki.rsa();
        X509Certificate newCert = TestPki.selfSigned(newKeys, "new");
        SSLContext trustsBoth = TestPki.clientContext(List.of(oldCert, newCert));

        try (TestServer server = new TestServer(new ServerTls.FromFiles(certs.files()), TestServer.settings());
             RawHttps kept = new RawHttps(trustsBoth, server.port())) {
            assertThat(kept.serverCertificate()).isEqualTo(oldCert);
            assertThat(kept.post("/kvcache/mutate", Reviews.bytes(Reviews.create("before", Reviews.optedInPod())))
                    .status()).isEqualTo(200);

            certs.rotate(Pem.write(List.of(newCert)), Pem.write(newKeys.getPrivate()));
            Await.until(() -> newCert.equals(presented(TestPki.clientContext(List.of(oldCert, newCert)), server.port())));

            RawHttps.Response onKept = kept.post("/kvcache/mutate",
                    Reviews.bytes(Reviews.create("after", Reviews.optedInPod())));
            assertThat(onKept.status()).isEqualTo(200);
            assertThat(Reviews.response(onKept.body())).containsEntry("uid", "after");
            assertThat(kept.serverCertificate()).isEqualTo(oldCert);

            try (RawHttps fresh = new RawHttps(TestPki.clientContext(List.of(newCert)), server.port())) {
                assertThat(fresh.serverCertificate()).isEqualTo(newCert);
                assertThat(fresh.get("/metrics").text())
                        .contains("kvcache_injector_tls_reloads_total{result=\"applied\"} 1.0\n");
            }
            assertThat(server.log).anySatisfy(l -> assertThat(l).contains("\"event\":\"tls-reloaded\"")
                    .contains("CN=new"));
        }
    }

    @Test
    void garbageInTheFilesKeepsServingTheOldCertificateAndLogsAnError() throws Exception {
        CertDir certs = new CertDir(dir);
        X509Certificate cert = certs.rotate(TestPki.ec(), "good");
        SSLContext ctx = TestPki.clientContext(List.of(cert));

        try (TestServer server = new TestServer(new ServerTls.FromFiles(certs.files()), TestServer.settings())) {
            certs.rotate("-----BEGIN CERTIFICATE-----\ngarbage\n-----END CERTIFICATE-----\n", "nope");
            server.awaitLog("\"event\":\"tls-reload-failed\"");

            try (RawHttps c = new RawHttps(ctx, server.port())) {
                assertThat(c.serverCertificate()).isEqualTo(cert);
                assertThat(c.get("/readyz").status()).isEqualTo(200);
                assertThat(c.get("/metrics").text())
                        .contains("kvcache_injector_tls_reloads_total{result=\"failed\"} 1.0\n");
            }
            assertThat(server.log).filteredOn(l -> l.contains("tls-reload-failed")).singleElement().asString()
                    .contains("\"level\":\"error\"").contains("certificate file " + certs.certificate());
        }
    }

    @Test
    void startingWithUnusableFilesFailsWithTheReason() throws Exception {
        Path cert = Files.writeString(dir.resolve("tls.crt"), "hello");
        Path key = Files.writeString(dir.resolve("tls.key"), Pem.write(TestPki.ec().getPrivate()));

        assertThatThrownBy(() -> new TestServer(new ServerTls.FromFiles(new CertificateFiles(cert, key,
                Optional.empty())), TestServer.settings()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot start: the TLS files are not usable: certificate file " + cert
                        + " holds no PEM CERTIFICATE block");
    }

    @Test
    void anExpiredServingCertificateMakesTheServerNotReady() throws Exception {
        KeyPair keys = TestPki.ec();
        Instant now = Instant.now();
        X509Certificate shortLived = TestPki.selfSigned(keys, "short", now.minusSeconds(60), now.plusSeconds(2));
        CertDir certs = new CertDir(dir);
        certs.rotate(Pem.write(List.of(shortLived)), Pem.write(keys.getPrivate()));

        try (TestServer server = new TestServer(new ServerTls.FromFiles(certs.files()), TestServer.settings())) {
            assertThat(server.server.ready()).isTrue();
            Await.until(() -> !server.server.ready());
            assertThat(server.server.notReadyReasons()).singleElement().asString()
                    .startsWith("the serving certificate expired at");
        }
    }

    @Test
    void withAClientCaTheAdmissionPathsNeedAVerifiedClientCertificateAndProbesDoNot() throws Exception {
        SelfSignedCertificate serving = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
        KeyPair caKeys = TestPki.ec();
        Instant now = Instant.now();
        X509Certificate clientCa = TestPki.issue(caKeys, "api-server-ca", caKeys, "api-server-ca",
                now.minusSeconds(60), now.plusSeconds(3600), true);
        KeyPair apiServerKeys = TestPki.ec();
        X509Certificate apiServerCert = TestPki.issue(apiServerKeys, "kube-apiserver", caKeys, "api-server-ca",
                now.minusSeconds(60), now.plusSeconds(3600), false);
        Path caFile = Files.writeString(dir.resolve("client-ca.crt"), Pem.write(List.of(clientCa)));

        try (TestServer server = new TestServer(new ServerTls.Generated(serving, Optional.of(caFile)),
                TestServer.settings())) {
            SSLContext anonymous = TestPki.clientContext(List.of(serving.ca()));
            try (RawHttps c = new RawHttps(anonymous, server.port())) {
                RawHttps.Response r = c.post("/kvcache/mutate",
                        Reviews.bytes(Reviews.create("u", Reviews.optedInPod())));
                assertThat(r.status()).isEqualTo(403);
                assertThat(Reviews.parse(r.body())).containsEntry("error", "client-certificate-required");
                assertThat(c.get("/healthz").status()).isEqualTo(200);
                assertThat(c.get("/readyz").status()).isEqualTo(200);
            }
            assertThat(server.fakes.calls).isEmpty();

            SSLContext apiServer = TestPki.clientContext(List.of(serving.ca()), apiServerKeys.getPrivate(),
                    List.of(apiServerCert));
            try (RawHttps c = new RawHttps(apiServer, server.port())) {
                assertThat(c.post("/kvcache/mutate", Reviews.bytes(Reviews.create("u", Reviews.optedInPod())))
                        .status()).isEqualTo(200);
            }

            KeyPair strangerKeys = TestPki.ec();
            SSLContext stranger = TestPki.clientContext(List.of(serving.ca()), strangerKeys.getPrivate(),
                    List.of(TestPki.selfSigned(strangerKeys, "stranger")));
            assertThatThrownBy(() -> {
                try (RawHttps c = new RawHttps(stranger, server.port())) {
                    c.post("/kvcache/mutate", Reviews.bytes(Reviews.create("u-stranger", Reviews.optedInPod())));
                }
            }).isInstanceOfAny(SSLException.class, java.net.SocketException.class);
            assertThat(server.fakes.calls).hasSize(1);
        }
    }

    @Test
    void aRotatedClientCaFileIsAppliedToNewConnections() throws Exception {
        CertDir certs = new CertDir(dir.resolve("serving"));
        Files.createDirectories(dir.resolve("serving"));
        X509Certificate serving = certs.rotate(TestPki.ec(), "server");
        Instant now = Instant.now();
        KeyPair oldCaKeys = TestPki.ec();
        X509Certificate oldCa = TestPki.issue(oldCaKeys, "old-ca", oldCaKeys, "old-ca", now.minusSeconds(60),
                now.plusSeconds(3600), true);
        KeyPair newCaKeys = TestPki.ec();
        X509Certificate newCa = TestPki.issue(newCaKeys, "new-ca", newCaKeys, "new-ca", now.minusSeconds(60),
                now.plusSeconds(3600), true);
        KeyPair clientKeys = TestPki.ec();
        X509Certificate clientCert = TestPki.issue(clientKeys, "kube-apiserver", newCaKeys, "new-ca",
                now.minusSeconds(60), now.plusSeconds(3600), false);
        Path caFile = dir.resolve("client-ca.crt");
        Files.writeString(caFile, Pem.write(List.of(oldCa)));
        SSLContext client = TestPki.clientContext(List.of(serving), clientKeys.getPrivate(), List.of(clientCert));

        try (TestServer server = new TestServer(new ServerTls.FromFiles(new CertificateFiles(certs.certificate(),
                certs.key(), Optional.of(caFile))), TestServer.settings())) {
            assertThatThrownBy(() -> {
                try (RawHttps c = new RawHttps(client, server.port())) {
                    c.get("/healthz");
                }
            }).isInstanceOfAny(SSLException.class, java.net.SocketException.class);

            Path next = Files.writeString(dir.resolve("client-ca.next"), Pem.write(List.of(newCa)));
            Files.move(next, caFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            server.awaitLog("\"event\":\"tls-reloaded\"");

            try (RawHttps c = new RawHttps(client, server.port())) {
                assertThat(c.post("/kvcache/mutate", Reviews.bytes(Reviews.create("u", Reviews.optedInPod())))
                        .status()).isEqualTo(200);
            }
        }
    }
}
