package io.kvcacheinjector.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.app.net.NoReverseLookupResolver;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} accepts TLS connections without a reverse DNS lookup of the client: Helidon asks the client
 * address's host name on every accepted connection, and the JVM's resolver answers without asking DNS, so a DNS
 * server that drops queries cannot hold a handshake (docs/explanation/decisions.md).
 */
class ServeNoReverseLookupTest {
    @TempDir
    Path tmp;

    @Test
    void everyAcceptedConnectionsHostNameIsAnsweredWithoutALookup() throws Exception {
        Path ca = tmp.resolve("ca.pem");
        ServeOptions options = ServeOptions.parse(new String[]{"--cluster", ServeTesting.EXAMPLES.resolve("cluster")
                .toString(), "--host", "127.0.0.1", "--port", "0", "--tls-ca-out", ca.toString()}, Map.of());
        try (ServeRuntime runtime = ServeRuntime.start(options, new JsonLog(l -> { }, Clock.systemUTC()),
                Clock.systemUTC())) {
            SSLContext client = ServeTesting.trusting(ca);
            // the JVM's resolver is the one that never looks up an address (META-INF/services of the app)
            assertThat(InetAddress.getByAddress(new byte[]{127, 0, 0, 1}).getHostName()).isEqualTo("127.0.0.1");

            long before = NoReverseLookupResolver.refusedReverseLookups();
            int connections = 5;
            for (int i = 0; i < connections; i++) {
                assertThat(ServeTesting.request(client, runtime.port(), "GET", "/healthz", null).status())
                        .isEqualTo(200);
            }

            // each handshake asked for the client's host name (Helidon's SSLEngine peer), and got the literal
            // without a query: the resolver never hands a reverse lookup to the JDK's own
            assertThat(NoReverseLookupResolver.refusedReverseLookups() - before).isGreaterThanOrEqualTo(connections);
        }
    }

    @Test
    void theResolverIsLoadedFromTheAppsServiceFile() throws Exception {
        try (var in = ServeNoReverseLookupTest.class.getClassLoader().getResourceAsStream(
                "META-INF/services/" + java.net.spi.InetAddressResolverProvider.class.getName())) {
            assertThat(in).isNotNull();
            assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).strip())
                    .isEqualTo(io.kvcacheinjector.app.net.NoReverseLookupResolverProvider.class.getName());
        }
    }
}
