package io.kvcacheinjector.app.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvcacheinjector.adapters.http.server.TlsProfile;
import io.kvcacheinjector.adapters.k8s.CacheBlendContract;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ServeOptionsTest {

    private static ServeOptions parse(String... args) {
        return ServeOptions.parse(args, Map.of());
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        ServeOptions o = parse();
        assertThat(o.cluster()).isEmpty();
        assertThat(o.host()).isEqualTo("0.0.0.0");
        assertThat(o.port()).isEqualTo(8443);
        assertThat(o.tlsCert()).isEmpty();
        assertThat(o.maxBodyBytes()).isEqualTo(3L * 1024 * 1024);
        assertThat(o.settingsNamespace()).isEqualTo("gpustack-system");
        assertThat(o.namespace()).isEqualTo("kvcache-injector");
        assertThat(o.shutdownDelay()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.shutdownGrace()).isEqualTo(Duration.ofSeconds(10));
        assertThat(o.serverSettings().shutdownDelay()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.cacheBlendFailClosed()).isFalse();
        assertThat(o.cacheBlendDisabled()).isFalse();
        assertThat(o.cacheBlendContract()).isEqualTo(CacheBlendContract.ENABLED);
    }

    @Test
    void disableCacheblendTurnsTheCacheBlendContractOff() {
        ServeOptions o = parse("--disable-cacheblend");
        assertThat(o.cacheBlendDisabled()).isTrue();
        assertThat(o.cacheBlendContract()).isEqualTo(CacheBlendContract.DISABLED);
        // a switch: it takes no value, and the next flag is read as a flag
        assertThat(parse("--disable-cacheblend", "--port", "0").port()).isZero();
        assertThatThrownBy(() -> parse("--disable-cacheblend=true")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--disable-cacheblend");
        assertThatThrownBy(() -> parse("--disable-cache-blend")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown option --disable-cache-blend");
    }

    @Test
    void theReadmeCommandParses() {
        ServeOptions o = parse("--cluster", "docs/examples/cluster", "--port", "8443", "--tls-ca-out", "/tmp/kvcache-ca.pem");
        assertThat(o.cluster()).contains(Path.of("docs/examples/cluster"));
        assertThat(o.tlsCaOut()).contains(Path.of("/tmp/kvcache-ca.pem"));
    }

    @Test
    void everyFlagIsRead() {
        ServeOptions o = parse("--host=127.0.0.1", "--port=0", "--health-port", "8081", "--tls-cert", "c.pem",
                "--tls-key", "k.pem",
                "--tls-client-ca", "ca.pem", "--tls-profile", "modern", "--max-body-bytes", "1Mi",
                "--settings-namespace", "gs",
                "--cacheblend-allowed-namespaces", "tmo,shared", "--cacheblend-fail-closed", "--disable-cacheblend",
                "--namespace", "hooks", "--shutdown-delay", "2s", "--shutdown-grace", "1500ms", "--engines-dir", "/opt/engines,/opt/more",
                "--warm-up-reviews", "5000");
        assertThat(o).isEqualTo(new ServeOptions(Optional.empty(), "127.0.0.1", 0, OptionalInt.of(8081),
                Optional.of(Path.of("c.pem")),
                Optional.of(Path.of("k.pem")), Optional.empty(), Optional.of(Path.of("ca.pem")), TlsProfile.MODERN,
                1024 * 1024, "gs",
                "tmo,shared", true, true, "hooks", Duration.ofSeconds(2), Duration.ofMillis(1500),
                List.of(Path.of("/opt/engines"), Path.of("/opt/more")), 5000, Optional.empty()));
    }

    @Test
    void theWarmUpIsOffByDefaultAndAnUnreadableCountNamesTheFlagAndItsRange() {
        assertThat(ServeOptions.parse(new String[0], Map.of()).warmUpReviews()).isZero();
        for (String bad : List.of("-1", "many", "100001", "")) {
            assertThatThrownBy(() -> parse("--warm-up-reviews", bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--warm-up-reviews")
                    .hasMessageContaining("0..100000");
        }
    }

    @Test
    void theHealthPortIsOffByDefaultReachesTheServerAndMustBeAPortOfItsOwn() {
        assertThat(ServeOptions.parse(new String[0], Map.of()).healthPort()).isEmpty();
        assertThat(ServeOptions.parse(new String[0], Map.of()).serverSettings().healthPort()).isEmpty();
        assertThat(parse("--health-port", "8081").serverSettings().healthPort()).hasValue(8081);
        assertThatThrownBy(() -> parse("--health-port", "http"))
                .hasMessage("--health-port must be a port number 0..65535 (0 picks a free port), not \"http\"");
        assertThatThrownBy(() -> parse("--port", "9443", "--health-port", "9443"))
                .hasMessage("--health-port 9443 is the HTTPS port (--port); give the plain-HTTP probes a port of"
                        + " their own, for example --health-port 8081");
        assertThatThrownBy(() -> parse("--health-port", "8443"))
                .as("the default HTTPS port counts too").hasMessageContaining("is the HTTPS port (--port)");
    }

    @Test
    void reconcileCacheBlendIsOffByDefaultAndItsLeaseDefaultsToTheWebhookNamespaceAndThePodName() {
        assertThat(ServeOptions.parse(new String[0], Map.of()).reconcile()).isEmpty();
        assertThat(ServeOptions.parse(new String[]{"--reconcile-cacheblend", "--namespace", "tmo"},
                Map.of("POD_NAME", "kvcache-injector-abc", "HOSTNAME", "h")).reconcile())
                .contains(new ServeOptions.Reconcile("kvcache-injector-cacheblend", "tmo", "kvcache-injector-abc"));
        assertThat(ServeOptions.parse(new String[]{"--reconcile-cacheblend", "--leader-election-lease", "l",
                "--leader-election-namespace", "ops"}, Map.of("HOSTNAME", "h")).reconcile())
                .contains(new ServeOptions.Reconcile("l", "ops", "h"));
    }

    @Test
    void reconcileCacheBlendRefusesFilesTheDisabledContractAndLeaseFlagsWithoutIt() {
        assertThatThrownBy(() -> ServeOptions.parse(new String[]{"--reconcile-cacheblend", "--cluster", "d"}, Map.of()))
                .hasMessageContaining("--reconcile-cacheblend writes to the Kubernetes API and --cluster");
        assertThatThrownBy(() -> ServeOptions.parse(new String[]{"--reconcile-cacheblend", "--disable-cacheblend"},
                Map.of())).hasMessageContaining("drop one of them");
        assertThatThrownBy(() -> ServeOptions.parse(new String[]{"--leader-election-lease", "x"}, Map.of()))
                .hasMessageContaining("add --reconcile-cacheblend or drop them");
    }

    @Test
    void theWebhookNamespaceDefaultsToPodNamespace() {
        assertThat(ServeOptions.parse(new String[0], Map.of("POD_NAMESPACE", "gpustack-system")).namespace())
                .isEqualTo("gpustack-system");
        assertThat(ServeOptions.parse(new String[]{"--namespace", "x"}, Map.of("POD_NAMESPACE", "y")).namespace())
                .isEqualTo("x");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "--tls-cert alone|--tls-cert c.pem|--tls-cert and --tls-key go together",
            "--tls-key alone|--tls-key k.pem|--tls-cert and --tls-key go together",
            "ca-out with own cert|--tls-cert c --tls-key k --tls-ca-out ca|--tls-ca-out writes the CA of the generated certificate",
            "port text|--port https|--port must be a port number 0..65535",
            "port too big|--port 70000|--port must be a port number 0..65535 (0 picks a free port), not \"70000\"",
            "body zero|--max-body-bytes 0|--max-body-bytes must be a positive number of bytes",
            "body unit|--max-body-bytes 3MB|--max-body-bytes must be a positive number of bytes, optionally with Ki, Mi or Gi",
            "grace text|--shutdown-grace soon|--shutdown-grace must be a duration such as 10s",
            "delay text|--shutdown-delay soon|--shutdown-delay must be a duration such as 10s, 500ms or 2m (0 for none), not \"soon\"",
            "delay negative|--shutdown-delay -5s|--shutdown-delay must be a duration such as 10s",
            "delay negative ISO|--shutdown-delay PT-5S|--shutdown-delay must be a duration such as 10s",
            "delay overflow|--shutdown-delay 99999999999999999999s|--shutdown-delay \"99999999999999999999s\" is too long",
            "delay empty|--shutdown-delay=|--shutdown-delay must be a duration",
            "unknown flag|--tls-crt c|unknown option --tls-crt",
            "missing value|--port|--port needs a value",
    })
    void aBadFlagIsRefusedWithItsNameAndTheFix(String name, String args, String message) {
        assertThatThrownBy(() -> parse(args.split(" "))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void aZeroShutdownDelayMeansStopAtOnce() {
        assertThat(parse("--shutdown-delay", "0").shutdownDelay()).isZero();
        assertThat(parse("--shutdown-delay=0s").serverSettings().shutdownDelay()).isZero();
        assertThat(parse("--shutdown-delay", "750ms").shutdownDelay()).isEqualTo(Duration.ofMillis(750));
    }

    @Test
    void durationsAndSizesReadTheUsualSpellings() {
        assertThat(ServeOptions.duration("10s")).isEqualTo(Duration.ofSeconds(10));
        assertThat(ServeOptions.duration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(ServeOptions.duration("30")).isEqualTo(Duration.ofSeconds(30));
        assertThat(ServeOptions.duration("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
        assertThat(ServeOptions.size("3145728")).isEqualTo(3145728);
        assertThat(ServeOptions.size("512Ki")).isEqualTo(512 * 1024);
    }
}
