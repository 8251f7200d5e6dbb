package io.kvcacheinjector.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code serve} command: flags, start-up failures, and the real process stopping on SIGTERM with exit 0. */
class ServeCommandTest {
    private static final Pattern PORT = Pattern.compile("\"event\":\"server-started\",\"port\":(\\d+)");

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int serve(String... args) throws Exception {
        return ServeCommand.run(args, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), ServeSignalsTesting.never());
    }

    @Test
    void aBadFlagIsOneLineOnStderrAndExitOne() throws Exception {
        assertThat(serve("--tls-cert", "x.pem")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("serve: --tls-cert and --tls-key go together");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void unusableCertificateFilesStopStartUpWithTheReason() throws Exception {
        Path cert = Files.writeString(tmp.resolve("tls.crt"), "nope");
        Path key = Files.writeString(tmp.resolve("tls.key"), "nope");
        assertThat(serve("--cluster", ServeTesting.EXAMPLES.resolve("cluster").toString(), "--port", "0",
                "--tls-cert", cert.toString(), "--tls-key", key.toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("serve: cannot start: the TLS files are not usable:"
                + " certificate file " + cert + " holds no PEM CERTIFICATE block" + System.lineSeparator());
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"event\":\"serve-failed\"");
    }

    @Test
    void aPortAlreadyInUseIsServeFailedAndExitOne() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            assertThat(serve("--cluster", ServeTesting.EXAMPLES.resolve("cluster").toString(),
                    "--host", "127.0.0.1", "--port", Integer.toString(port))).isEqualTo(1);
            String stderr = err.toString(StandardCharsets.UTF_8);
            assertThat(stderr.lines()).hasSize(1);
            assertThat(stderr).startsWith("serve: cannot start: could not listen on 127.0.0.1:" + port)
                    .contains("the port is in use").contains("--port");
            String stdout = out.toString(StandardCharsets.UTF_8);
            assertThat(stdout).contains("\"event\":\"serve-failed\"").doesNotContain("server-started");
            // the occupied port still belongs to its owner: nothing took it over or closed it
            assertThat(taken.isBound()).isTrue();
        }
    }

    @Test
    void aMissingClusterDirectoryIsOneLineNamingIt() throws Exception {
        Path missing = tmp.resolve("no-such-cluster");
        assertThat(serve("--cluster", missing.toString(), "--port", "0")).isEqualTo(1);
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertThat(stderr).startsWith("serve: ").contains(missing.toString()).doesNotContain("Guice")
                .doesNotContain("provision");
        assertThat(stderr.lines()).hasSize(1);
    }

    @Test
    void helpPrintsEveryFlag() throws Exception {
        assertThat(serve("--help")).isZero();
        for (String flag : ServeOptions.VALUED) {
            assertThat(out.toString(StandardCharsets.UTF_8)).contains(flag);
        }
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--cacheblend-fail-closed");
    }

    @Test
    void theProcessServesUntilSigtermThenStopsGracefullyWithExitZero() throws Exception {
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        Path ca = tmp.resolve("ca.pem");
        Path stdout = tmp.resolve("serve.out");
        // stdout goes to a file: reading a child's pipe races with its exit ("Stream closed") and loses lines
        Process process = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "serve", "--cluster", ServeTesting.EXAMPLES.resolve("cluster").toString(),
                "--host", "127.0.0.1", "--port", "0", "--tls-ca-out", ca.toString(), "--shutdown-grace", "5s")
                .redirectOutput(stdout.toFile())
                .redirectError(tmp.resolve("serve.err").toFile())
                .start();
        try {
            int port = -1;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (port < 0) {
                Matcher m = PORT.matcher(Files.readString(stdout));
                if (m.find()) {
                    port = Integer.parseInt(m.group(1));
                } else if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new AssertionError("serve did not start listening: " + Files.readString(stdout)
                            + Files.readString(tmp.resolve("serve.err")));
                } else {
                    Thread.sleep(50);
                }
            }
            assertThat(ServeTesting.request(ServeTesting.trusting(ca), port, "GET", "/readyz", null).status())
                    .isEqualTo(200);

            process.destroy(); // SIGTERM

            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).isZero();
            List<String> lines = Files.readAllLines(stdout);
            assertThat(lines).anySatisfy(l -> assertThat(l).contains("\"event\":\"serve-stopping\"")
                    .contains("\"signal\":\"SIGTERM\""));
            assertThat(lines).anySatisfy(l -> assertThat(l).contains("\"event\":\"server-stopped\""));
            assertThat(lines.getLast()).contains("\"event\":\"serve-stopped\"");
        } finally {
            process.destroyForcibly();
        }
    }
}
