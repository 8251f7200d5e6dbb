package io.kvcacheinjector.adapters.http.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.adapters.http.testing.CertDir;
import io.kvcacheinjector.adapters.http.testing.TestPki;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsFileWatcherTest {
    @TempDir
    Path dir;

    private CertDir certs;
    private final List<TlsMaterial> applied = new CopyOnWriteArrayList<>();
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final TlsMetrics metrics = new TlsMetrics();
    private TlsFileWatcher watcher;
    private X509Certificate first;

    @BeforeEach
    void setUp() throws Exception {
        certs = new CertDir(dir);
        first = certs.rotate(TestPki.ec(), "first");
        watcher = new TlsFileWatcher(certs.files(), applied::add, new JsonLog(log::add, Clock.systemUTC()), metrics,
                Clock.systemUTC());
        assertThat(watcher.loadInitial()).isInstanceOf(TlsLoad.Loaded.class);
    }

    @Test
    void nothingChangedMeansNothingApplied() {
        assertThat(watcher.poll()).isFalse();
        assertThat(applied).isEmpty();
    }

    @Test
    void aRotatedSecretIsAppliedOnce() throws Exception {
        X509Certificate second = certs.rotate(TestPki.ec(), "second");

        assertThat(watcher.poll()).isTrue();
        assertThat(watcher.poll()).isFalse();

        assertThat(applied).singleElement().satisfies(m -> assertThat(m.serving().leaf()).isEqualTo(second));
        assertThat(metrics.appliedCount()).isEqualTo(1);
        assertThat(log).singleElement().asString().contains("\"event\":\"tls-reloaded\"").contains("CN=second");
    }

    @Test
    void garbageKeepsTheOldCertificateAndLogsOneErrorUntilTheFilesChangeAgain() throws Exception {
        certs.rotate("not a certificate", "not a key");

        assertThat(watcher.poll()).isFalse();
        assertThat(watcher.poll()).isFalse();

        assertThat(applied).isEmpty();
        assertThat(metrics.failedCount()).isEqualTo(1);
        assertThat(log).singleElement().asString().contains("\"level\":\"error\"")
                .contains("\"event\":\"tls-reload-failed\"").contains("holds no PEM CERTIFICATE block")
                .contains("the previous certificate is still served");

        KeyPair keys = TestPki.rsa();
        X509Certificate fixed = certs.rotate(keys, "fixed");
        assertThat(watcher.poll()).isTrue();
        assertThat(applied).singleElement().satisfies(m -> assertThat(m.serving().leaf()).isEqualTo(fixed));
    }

    @Test
    void theSameContentWrittenAgainIsNotReapplied() throws Exception {
        String certPem = Pem.write(List.of(first));
        String keyPem = java.nio.file.Files.readString(certs.key());
        certs.rotate(certPem, keyPem);

        assertThat(watcher.poll()).isFalse();
        assertThat(applied).isEmpty();
    }

    @Test
    void materialTheServerRefusesKeepsTheOldOneAndIsLogged() throws Exception {
        TlsFileWatcher refusing = new TlsFileWatcher(certs.files(), m -> {
            throw new IllegalArgumentException("bad key type");
        }, new JsonLog(log::add, Clock.systemUTC()), metrics, Clock.systemUTC());
        refusing.loadInitial();
        certs.rotate(TestPki.ec(), "second");

        assertThat(refusing.poll()).isFalse();
        assertThat(metrics.failedCount()).isEqualTo(1);
        assertThat(log).singleElement().asString().contains("the server refused the new material");
    }

    @Test
    void thePollerAppliesARotationByItself() throws Exception {
        watcher.start(java.time.Duration.ofMillis(20));
        try {
            X509Certificate second = certs.rotate(TestPki.ec(), "second");
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (applied.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(applied).singleElement().satisfies(m -> assertThat(m.serving().leaf()).isEqualTo(second));
        } finally {
            watcher.close();
        }
    }
}
