package io.kvcacheinjector.app.e2e;

import io.kvcacheinjector.adapters.http.tls.Pem;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The built jar's {@code serve}, run as its own JVM the way the chart's Deployment runs it: certificate files, the
 * webhook's and the settings namespace, and a kubeconfig (the chart ServiceAccount's token) in {@code KUBECONFIG},
 * so the informer-backed view reads the real API server with the chart's RBAC.
 */
final class WebhookProcess implements AutoCloseable {
    private static final Duration READY = Duration.ofSeconds(90);

    private final ManagedProcess process;
    private final int port;
    private final HttpClient http;

    private WebhookProcess(ManagedProcess process, int port, HttpClient http) {
        this.process = process;
        this.port = port;
        this.http = http;
    }

    /**
     * Starts {@code java -jar <jar> serve ...} and waits until its {@code /readyz} answers 200 (TLS loaded and every
     * informer synced).
     */
    static WebhookProcess start(Path jar, Path dir, SelfSignedCertificate certificate, int port, String kubeconfig,
                                String namespace, String settingsNamespace) {
        return startProcess(jar, dir, certificate, port, kubeconfig, namespace, settingsNamespace,
                List.of("-XX:+ExitOnOutOfMemoryError"), List.of(), Map.of());
    }

    /** As {@link #start(Path, Path, SelfSignedCertificate, int, String, String, String)}, with these JVM options. */
    static WebhookProcess start(Path jar, Path dir, SelfSignedCertificate certificate, int port, String kubeconfig,
                                String namespace, String settingsNamespace, List<String> jvmOptions) {
        return startProcess(jar, dir, certificate, port, kubeconfig, namespace, settingsNamespace, jvmOptions, List.of(),
                Map.of());
    }

    /** With these JVM options, more {@code serve} flags and environment variables (a replica's {@code POD_NAME}). */
    static WebhookProcess start(Path jar, Path dir, SelfSignedCertificate certificate, int port, String kubeconfig,
                                String namespace, String settingsNamespace, List<String> jvmOptions,
                                List<String> moreArgs, Map<String, String> moreEnv) {
        return startProcess(jar, dir, certificate, port, kubeconfig, namespace, settingsNamespace, jvmOptions, moreArgs,
                moreEnv);
    }

    /** As above, with more {@code serve} flags and environment variables (a replica's {@code POD_NAME}). */
    static WebhookProcess start(Path jar, Path dir, SelfSignedCertificate certificate, int port, String kubeconfig,
                                String namespace, String settingsNamespace, List<String> moreArgs,
                                Map<String, String> moreEnv) {
        return startProcess(jar, dir, certificate, port, kubeconfig, namespace, settingsNamespace,
                List.of("-XX:+ExitOnOutOfMemoryError"), moreArgs, moreEnv);
    }

    private static WebhookProcess startProcess(Path jar, Path dir, SelfSignedCertificate certificate, int port,
                                        String kubeconfig, String namespace, String settingsNamespace,
                                        List<String> jvmOptions, List<String> moreArgs, Map<String, String> moreEnv) {
        try {
            Files.createDirectories(dir);
            Path cert = dir.resolve("tls.crt");
            Path key = dir.resolve("tls.key");
            Path config = dir.resolve("kubeconfig");
            Files.writeString(cert, Pem.write(certificate.serving().chain()), StandardCharsets.US_ASCII);
            Files.writeString(key, Pem.write(certificate.serving().key()), StandardCharsets.US_ASCII);
            Files.writeString(config, kubeconfig, StandardCharsets.UTF_8);
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> command = new java.util.ArrayList<>(List.of(java));
            command.addAll(jvmOptions);
            command.addAll(List.of("-jar", jar.toString(), "serve",
                    "--host", "127.0.0.1", "--port", Integer.toString(port),
                    "--tls-cert", cert.toString(), "--tls-key", key.toString(),
                    "--namespace", namespace, "--settings-namespace", settingsNamespace));
            command.addAll(moreArgs);
            Map<String, String> env = new java.util.HashMap<>(Map.of("KUBECONFIG", config.toString(),
                    "POD_NAMESPACE", namespace));
            env.putAll(moreEnv);
            ManagedProcess process = ManagedProcess.start("webhook", command, env, dir.resolve("webhook.log"));
            HttpClient http = HttpClient.newBuilder().sslContext(ControlPlane.trusting(certificate.caPem()))
                    .connectTimeout(Duration.ofSeconds(2)).build();
            WebhookProcess webhook = new WebhookProcess(process, port, http);
            try {
                webhook.awaitReady();
            } catch (RuntimeException e) {
                process.stop(Duration.ofSeconds(5));
                throw e;
            }
            return webhook;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + READY.toNanos();
        String last = "no answer";
        while (true) {
            if (!process.alive()) {
                throw new IllegalStateException("the webhook exited while starting:\n" + process.tail(40));
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url() + "/readyz"))
                        .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
                last = r.statusCode() + " " + r.body().strip();
            } catch (IOException e) {
                last = e.getClass().getSimpleName() + ": " + e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the webhook's /readyz did not answer 200 within " + READY.toSeconds()
                        + " s (last: " + last + "):\n" + process.tail(40));
            }
            ControlPlane.sleep(10); // fine-grained, so that the time to readiness can be read from the outside
        }
    }

    /** The process id of the JVM running {@code serve}. */
    long pid() {
        return process.pid();
    }

    String url() {
        return "https://127.0.0.1:" + port;
    }

    boolean alive() {
        return process.alive();
    }

    /** The server's own {@code /metrics}. */
    String metrics() {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url() + "/metrics")).timeout(Duration.ofSeconds(5))
                    .GET().build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The exit status of {@code serve}; only once it has exited. */
    int exitValue() {
        return process.exitValue();
    }

    String log() {
        return process.output();
    }

    String tail(int lines) {
        return process.tail(lines);
    }

    /** SIGTERM (the server stops gracefully), SIGKILL after 20 s. */
    Duration stop() {
        return process.stop(Duration.ofSeconds(20));
    }

    @Override
    public void close() {
        stop();
    }
}
