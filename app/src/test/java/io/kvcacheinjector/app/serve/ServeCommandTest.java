package io.kvcacheinjector.app.serve;

import io.kvcacheinjector.app.Main;

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
    void aBadFlagIsOneLineOnStderrAndExitTwo() throws Exception {
        assertThat(serve("--tls-cert", "x.pem")).isEqualTo(2);
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
    void aBadShutdownDelayIsOneLineNamingTheFlagAndTheFix() throws Exception {
        assertThat(serve("--shutdown-delay", "soon")).isEqualTo(2);
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertThat(stderr.lines().findFirst()).contains("serve: --shutdown-delay must be a duration such as 10s,"
                + " 500ms or 2m (0 for none), not \"soon\"");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void afterTheStopRequestServeKeepsAnsweringNotReadyForTheDelayThenClosesThePort() throws Exception {
        Path ca = tmp.resolve("ca.pem");
        ServeSignals signals = ServeSignals.unsignalled();
        java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            // a ten-minute delay, ended by the second stop request: nothing here depends on how long anything takes
            java.util.concurrent.Future<Integer> run = thread.submit(() -> ServeCommand.run(new String[]{"--cluster",
                    ServeTesting.EXAMPLES.resolve("cluster").toString(), "--host", "127.0.0.1", "--port", "0",
                    "--tls-ca-out", ca.toString(), "--shutdown-delay", "10m"}, Map.of(),
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true,
                            StandardCharsets.UTF_8), signals));
            int port = awaitPort(() -> out.toString(StandardCharsets.UTF_8), run::isDone);
            javax.net.ssl.SSLContext client = ServeTesting.trusting(ca);
            awaitReady(client, port);

            signals.requestStop("SIGTERM");
            awaitLog("\"event\":\"shutdown-delay-started\"");

            // every request on a new connection, as the API server makes them through a Service
            ServeTesting.Response readyz = ServeTesting.request(client, port, "GET", "/readyz", null);
            assertThat(readyz.status()).isEqualTo(503);
            assertThat(readyz.body()).contains("shutting down");
            ServeTesting.Response review = ServeTesting.request(client, port, "POST", "/kvcache/mutate",
                    ServeTesting.review("u-during-delay", "CREATE", ServeTesting.examplePod("vllm.yaml"), null));
            assertThat(review.status()).isEqualTo(200);
            com.fasterxml.jackson.databind.JsonNode response = ServeTesting.JSON.readTree(review.body())
                    .get("response");
            assertThat(response.get("uid").asText()).isEqualTo("u-during-delay");
            assertThat(response.get("allowed").asBoolean()).isTrue();
            assertThat(response.has("patch")).isTrue();
            assertThat(ServeTesting.request(client, port, "GET", "/healthz", null).status()).isEqualTo(200);
            assertThat(run).isNotDone();

            // the second signal (Ctrl-C twice) ends a ten-minute delay at once
            signals.requestStop("SIGINT");

            assertThat(run.get(60, TimeUnit.SECONDS)).isZero();
            assertThat(accepting(port)).isFalse();
            String log = out.toString(StandardCharsets.UTF_8);
            assertThat(log).contains("\"event\":\"serve-stopping\",\"signal\":\"SIGTERM\"")
                    .contains("\"event\":\"shutdown-delay-started\",\"delaySeconds\":600,")
                    .contains("\"event\":\"shutdown-delay-ended\",\"endedBy\":\"SIGINT\"");
            assertThat(log.indexOf("shutdown-delay-ended")).isLessThan(log.indexOf("\"event\":\"server-stopping\""));
            assertThat(log.lines().reduce((a, b) -> b)).hasValueSatisfying(l -> assertThat(l)
                    .contains("\"event\":\"serve-stopped\""));
        } finally {
            signals.requestStop("test-end");
            signals.requestStop("test-end");
            thread.shutdownNow();
        }
    }

    private void awaitLog(String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!out.toString(StandardCharsets.UTF_8).contains(text)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no " + text + " in the log: " + out.toString(StandardCharsets.UTF_8));
            }
            Thread.sleep(10);
        }
    }

    private static void awaitReady(javax.net.ssl.SSLContext client, int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (ServeTesting.request(client, port, "GET", "/readyz", null).status() != 200) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("serve did not become ready");
            }
            Thread.sleep(20);
        }
    }

    private static boolean accepting(int port) {
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static int awaitPort(java.util.function.Supplier<String> stdout, java.util.function.BooleanSupplier ended)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            Matcher m = PORT.matcher(stdout.get());
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (ended.getAsBoolean() || System.nanoTime() > deadline) {
                throw new AssertionError("serve did not start listening: " + stdout.get());
            }
            Thread.sleep(50);
        }
    }

    @Test
    void theProcessServesUntilSigtermThenThroughTheDelayUntilASecondSignalThenStopsWithExitZero() throws Exception {
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        Path ca = tmp.resolve("ca.pem");
        Path stdout = tmp.resolve("serve.out");
        // stdout goes to a file: reading a child's pipe races with its exit ("Stream closed") and loses lines
        Process process = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "serve", "--cluster", ServeTesting.EXAMPLES.resolve("cluster").toString(),
                "--host", "127.0.0.1", "--port", "0", "--tls-ca-out", ca.toString(), "--shutdown-grace", "5s",
                "--shutdown-delay", "10m")
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

            process.destroy(); // SIGTERM: the shutdown delay begins, and serve still answers
            long delayDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(stdout).contains("\"event\":\"shutdown-delay-started\"")) {
                assertThat(System.nanoTime()).as("shutdown-delay-started in the log").isLessThan(delayDeadline);
                Thread.sleep(20);
            }
            assertThat(ServeTesting.request(ServeTesting.trusting(ca), port, "GET", "/readyz", null).status())
                    .isEqualTo(503);
            assertThat(process.isAlive()).isTrue();

            process.destroy(); // a second SIGTERM ends the ten-minute delay

            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).isZero();
            List<String> lines = Files.readAllLines(stdout);
            assertThat(lines).anySatisfy(l -> assertThat(l).contains("\"event\":\"serve-stopping\"")
                    .contains("\"signal\":\"SIGTERM\""));
            assertThat(lines).anySatisfy(l -> assertThat(l).contains("\"event\":\"shutdown-delay-ended\"")
                    .contains("\"endedBy\":\"SIGTERM\""));
            assertThat(lines).anySatisfy(l -> assertThat(l).contains("\"event\":\"server-stopped\""));
            assertThat(lines.getLast()).contains("\"event\":\"serve-stopped\"");
        } finally {
            process.destroyForcibly();
        }
    }
}
