package io.kvcacheinjector.adapters.http.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.testing.CertDir;
import io.kvcacheinjector.adapters.http.testing.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificateFilesTest {
    @TempDir
    Path dir;

    @Test
    void loadsAMatchingCertificateAndKey() throws Exception {
        CertDir certs = new CertDir(dir);
        KeyPair keys = TestPki.ec();
        X509Certificate cert = certs.rotate(keys, "one");

        TlsLoad load = certs.files().load(Instant.now());

        assertThat(load).isInstanceOfSatisfying(TlsLoad.Loaded.class, l -> {
            assertThat(l.material().serving().leaf()).isEqualTo(cert);
            assertThat(l.material().clientCas()).isEmpty();
        });
    }

    @Test
    void aKeyThatBelongsToAnotherCertificateIsRefusedWithBothFilesNamed() throws Exception {
        CertDir certs = new CertDir(dir);
        X509Certificate cert = TestPki.selfSigned(TestPki.ec(), "one");
        certs.rotate(Pem.write(List.of(cert)), Pem.write(TestPki.ec().getPrivate()));

        TlsLoad load = certs.files().load(Instant.now());

        assertThat(load).isInstanceOfSatisfying(TlsLoad.Failed.class, f -> assertThat(f.reason())
                .contains("does not belong to the first certificate").contains("tls.key").contains("tls.crt"));
    }

    @Test
    void anExpiredCertificateIsRefused() throws Exception {
        CertDir certs = new CertDir(dir);
        KeyPair keys = TestPki.ec();
        Instant now = Instant.now();
        X509Certificate old = TestPki.selfSigned(keys, "old", now.minus(Duration.ofDays(10)), now.minus(Duration.ofDays(1)));
        certs.rotate(Pem.write(List.of(old)), Pem.write(keys.getPrivate()));

        assertThat(certs.files().load(now)).isInstanceOfSatisfying(TlsLoad.Failed.class,
                f -> assertThat(f.reason()).contains("expired at"));
    }

    @Test
    void aMissingFileIsNamed() {
        CertificateFiles files = new CertificateFiles(dir.resolve("nope.crt"), dir.resolve("nope.key"), Optional.empty());
        assertThat(files.load(Instant.now())).isEqualTo(new TlsLoad.Failed("file " + dir.resolve("nope.crt")
                + " does not exist"));
    }

    @Test
    void garbageInTheCertificateFileIsNamed() throws Exception {
        CertDir certs = new CertDir(dir);
        certs.rotate("garbage", Pem.write(TestPki.ec().getPrivate()));
        assertThat(certs.files().load(Instant.now())).isInstanceOfSatisfying(TlsLoad.Failed.class,
                f -> assertThat(f.reason()).isEqualTo("certificate file " + certs.certificate()
                        + " holds no PEM CERTIFICATE block"));
    }

    @Test
    void readsTheClientCaFile() throws Exception {
        CertDir certs = new CertDir(dir);
        certs.rotate(TestPki.ec(), "server");
        X509Certificate ca = TestPki.selfSigned(TestPki.ec(), "client-ca");
        Path caFile = Files.writeString(dir.resolve("ca.crt"), Pem.write(List.of(ca)));

        TlsLoad load = new CertificateFiles(certs.certificate(), certs.key(), Optional.of(caFile)).load(Instant.now());

        assertThat(load).isInstanceOfSatisfying(TlsLoad.Loaded.class,
                l -> assertThat(l.material().clientCas()).containsExactly(ca));
    }

    @Test
    void theStampFollowsTheSymlinkSwapEvenWhenNothingElseChanges() throws Exception {
        CertDir certs = new CertDir(dir);
        KeyPair keys = TestPki.ec();
        certs.rotate(keys, "one");
        String before = certs.files().stamp();
        certs.rotate(keys, "two");
        assertThat(certs.files().stamp()).isNotEqualTo(before);
    }
}
