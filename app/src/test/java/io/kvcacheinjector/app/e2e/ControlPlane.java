package io.kvcacheinjector.app.e2e;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A real etcd and kube-apiserver on free loopback ports, with the flags of {@code tools/e2e/README.md}: token auth
 * (one {@code system:masters} token), a service-account key made here, the serving certificate the API server signs
 * itself in {@code pki/apiserver.crt} (leaf, then its CA: both are trusted). {@link #close()} stops the API server,
 * then etcd.
 */
final class ControlPlane implements AutoCloseable {
    static final String ADMIN_TOKEN = "e2e-admin-token";
    private static final Duration ETCD_READY = Duration.ofSeconds(30);
    private static final Duration APISERVER_READY = Duration.ofSeconds(90);

    private final Path dir;
    private final ManagedProcess etcd;
    private final ManagedProcess apiServer;
    private final int port;
    private final String caPem;
    private final HttpClient http;
    private final Timings.Phases startup;

    private ControlPlane(Path dir, ManagedProcess etcd, ManagedProcess apiServer, int port, String caPem,
                         HttpClient http, Timings.Phases startup) {
        this.dir = dir;
        this.etcd = etcd;
        this.apiServer = apiServer;
        this.port = port;
        this.caPem = caPem;
        this.http = http;
        this.startup = startup;
    }

    /** Starts both in {@code dir} (which must exist), retrying once with other ports when a process exits early. */
    static ControlPlane start(Path binaries, Path dir) {
        return start(binaries, dir, false);
    }

    /**
     * As {@link #start(Path, Path)}; with {@code auditLog}, the API server also writes an audit log of every Pod
     * request at level Metadata (annotations included) to {@link #auditLog()}.
     */
    static ControlPlane start(Path binaries, Path dir, boolean auditLog) {
        IllegalStateException first = null;
        for (int attempt = 1; attempt <= 2; attempt++) {
            Path attemptDir = dir.resolve("attempt-" + attempt);
            try {
                Files.createDirectories(attemptDir);
                return startOnce(binaries, attemptDir, auditLog);
            } catch (ProcessExitedEarly e) {
                System.out.println("e2e: " + e.getMessage() + (attempt == 1 ? "; retrying once on other ports" : ""));
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        throw first;
    }

    private static ControlPlane startOnce(Path binaries, Path dir, boolean auditLog) throws IOException {
        Timings.Phases startup = new Timings.Phases();
        int[] ports = freePorts(3);
        int etcdClient = ports[0];
        int etcdPeer = ports[1];
        int apiPort = ports[2];
        writeServiceAccountKey(dir.resolve("sa.key"));
        Files.writeString(dir.resolve("tokens.csv"), ADMIN_TOKEN + ",e2e-admin,e2e-admin-uid,\"system:masters\"\n");
        Files.createDirectories(dir.resolve("pki"));

        ManagedProcess etcd = ManagedProcess.start("etcd", List.of(binaries.resolve("etcd").toString(),
                "--name=e2e", "--data-dir=" + dir.resolve("etcd"),
                "--listen-client-urls=http://127.0.0.1:" + etcdClient,
                "--advertise-client-urls=http://127.0.0.1:" + etcdClient,
                "--listen-peer-urls=http://127.0.0.1:" + etcdPeer,
                "--initial-advertise-peer-urls=http://127.0.0.1:" + etcdPeer,
                "--initial-cluster=e2e=http://127.0.0.1:" + etcdPeer,
                "--unsafe-no-fsync", "--log-level=warn"), Map.of(), dir.resolve("etcd.log"));
        ManagedProcess apiServer = null;
        try {
            HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            awaitHttp(etcd, plain, URI.create("http://127.0.0.1:" + etcdClient + "/health"), Map.of(),
                    body -> body.contains("\"health\":\"true\""), ETCD_READY);
            startup.mark("etcd healthy");

            Path cert = dir.resolve("pki/apiserver.crt");
            List<String> command = new ArrayList<>(List.of(binaries.resolve("kube-apiserver").toString(),
                    "--etcd-servers=http://127.0.0.1:" + etcdClient,
                    "--bind-address=127.0.0.1", "--secure-port=" + apiPort,
                    "--advertise-address=127.0.0.1", "--endpoint-reconciler-type=none",
                    "--cert-dir=" + dir.resolve("pki"),
                    "--service-account-issuer=https://127.0.0.1:" + apiPort,
                    "--service-account-key-file=" + dir.resolve("sa.key"),
                    "--service-account-signing-key-file=" + dir.resolve("sa.key"),
                    "--token-auth-file=" + dir.resolve("tokens.csv"), "--authorization-mode=RBAC",
                    "--service-cluster-ip-range=10.0.0.0/24",
                    "--disable-admission-plugins=ServiceAccount", "--allow-privileged=true"));
            if (auditLog) {
                Files.writeString(dir.resolve("audit-policy.yaml"), """
                        apiVersion: audit.k8s.io/v1
                        kind: Policy
                        omitStages: [RequestReceived]
                        rules:
                          - level: Metadata
                            resources: [{group: "", resources: ["pods"]}]
                          - level: None
                        """);
                command.add("--audit-policy-file=" + dir.resolve("audit-policy.yaml"));
                command.add("--audit-log-path=" + dir.resolve("audit.log"));
            }
            apiServer = ManagedProcess.start("kube-apiserver", command, Map.of(), dir.resolve("kube-apiserver.log"));
            long deadline = System.nanoTime() + APISERVER_READY.toNanos();
            while (!Files.isRegularFile(cert) || Files.size(cert) == 0) {
                checkAlive(apiServer);
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("kube-apiserver wrote no " + cert + " within "
                            + APISERVER_READY.toSeconds() + " s:\n" + apiServer.tail(40));
                }
                sleep(100);
            }
            String caPem = Files.readString(cert, StandardCharsets.US_ASCII);
            HttpClient https = HttpClient.newBuilder().sslContext(trusting(caPem))
                    .connectTimeout(Duration.ofSeconds(2)).build();
            Map<String, String> auth = Map.of("Authorization", "Bearer " + ADMIN_TOKEN);
            String base = "https://127.0.0.1:" + apiPort;
            awaitHttp(apiServer, https, URI.create(base + "/readyz"), auth, "ok"::equals,
                    Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            startup.mark("kube-apiserver /readyz");
            // the namespace 'default' is created by a post-start hook around readiness
            awaitHttp(apiServer, https, URI.create(base + "/api/v1/namespaces/default"), auth,
                    body -> body.contains("\"name\":\"default\""), Duration.ofSeconds(30));
            startup.mark("namespace default");
            ControlPlane started = new ControlPlane(dir, etcd, apiServer, apiPort, caPem, https, startup);
            started.requireExpectedVersion(binaries);
            return started;
        } catch (RuntimeException | IOException e) {
            if (apiServer != null) {
                apiServer.stop(Duration.ofSeconds(15));
            }
            etcd.stop(Duration.ofSeconds(15));
            throw e;
        }
    }

    /**
     * The version matrix names each surefire execution after its API server ({@code -Dkvcache.e2e.version}, set by
     * app/pom.xml): a run whose binaries are another version would carry a false name, so it fails here instead.
     */
    private void requireExpectedVersion(Path binaries) {
        String expected = System.getProperty("kvcache.e2e.version", "").strip();
        if (expected.isEmpty()) {
            return;
        }
        Matcher m = Pattern.compile("\"gitVersion\"\\s*:\\s*\"([^\"]+)\"").matcher(get("/version"));
        String actual = m.find() ? m.group(1) : "(no gitVersion in /version)";
        if (!actual.equals(expected)) {
            throw new IllegalStateException("the kube-apiserver in " + binaries + " is " + actual + ", but this run is"
                    + " named " + expected + " (-Dkvcache.e2e.version): give the execution that version's binaries");
        }
    }

    /** {@code https://127.0.0.1:<port>}. */
    String url() {
        return "https://127.0.0.1:" + port;
    }

    /** The API server's serving certificate file content (leaf and CA, PEM). */
    String caPem() {
        return caPem;
    }

    Timings.Phases startup() {
        return startup;
    }

    Path dir() {
        return dir;
    }

    /** The audit log, written when started with {@code auditLog}: one JSON event per line. */
    Path auditLog() {
        return dir.resolve("audit.log");
    }

    /** A fabric8 client with the admin token that trusts the serving CA (and nothing from ~/.kube). */
    KubernetesClient adminClient() {
        return client(ADMIN_TOKEN);
    }

    /** A fabric8 client authenticated by {@code token}. */
    KubernetesClient client(String token) {
        Config config = new ConfigBuilder(Config.empty())
                .withMasterUrl(url())
                .withOauthToken(token)
                .withCaCertData(Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII)))
                .withRequestTimeout(30_000)
                .withConnectionTimeout(5_000)
                .withRequestRetryBackoffLimit(0) // the suite asserts the API server's first answer, not a retried one
                .build();
        return new KubernetesClientBuilder().withConfig(config).build();
    }

    /** A kubeconfig for {@code token}, as the webhook process reads it from {@code KUBECONFIG}. */
    String kubeconfig(String token, String user) {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                  - name: e2e
                    cluster:
                      server: %s
                      certificate-authority-data: %s
                contexts:
                  - name: e2e
                    context: {cluster: e2e, user: %s}
                current-context: e2e
                users:
                  - name: %s
                    user: {token: "%s"}
                """.formatted(url(), Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII)),
                user, user, token);
    }

    /** {@code GET path} with the admin token; the body, or an exception naming the status. */
    String get(String path) {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url() + path))
                    .header("Authorization", "Bearer " + ADMIN_TOKEN).timeout(Duration.ofSeconds(30)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("GET " + path + " answered " + response.statusCode() + ": "
                        + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException("GET " + path + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The last lines of both logs, for a failure. */
    String logTails(int lines) {
        return "---- kube-apiserver.log (last " + lines + " lines)\n" + apiServer.tail(lines)
                + "\n---- etcd.log (last " + lines + " lines)\n" + etcd.tail(lines);
    }

    /** Stops the API server, then etcd; returns what each took. */
    Map<String, Duration> stop() {
        Duration api = apiServer.stop(Duration.ofSeconds(15));
        Duration store = etcd.stop(Duration.ofSeconds(15));
        Map<String, Duration> took = new java.util.LinkedHashMap<>();
        took.put("kube-apiserver", api);
        took.put("etcd", store);
        return took;
    }

    @Override
    public void close() {
        stop();
    }

    // ---- helpers

    /** Thrown when a control-plane process exits while starting (a port taken between choosing and binding). */
    static final class ProcessExitedEarly extends IllegalStateException {
        ProcessExitedEarly(String message) {
            super(message);
        }
    }

    private static void checkAlive(ManagedProcess process) {
        if (!process.alive()) {
            throw new ProcessExitedEarly(process.name() + " exited while starting:\n" + process.tail(30));
        }
    }

    private static void awaitHttp(ManagedProcess process, HttpClient http, URI uri, Map<String, String> headers,
                                  java.util.function.Predicate<String> ready, Duration budget) {
        long deadline = System.nanoTime() + budget.toNanos();
        String last = "no answer";
        while (true) {
            checkAlive(process);
            try {
                HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET();
                headers.forEach(request::header);
                HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
                String body = response.body().replace(" ", "").strip();
                if (response.statusCode() == 200 && ready.test(body)) {
                    return;
                }
                last = response.statusCode() + " " + abbreviate(response.body());
            } catch (IOException e) {
                last = e.getClass().getSimpleName() + ": " + e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(process.name() + ": " + uri + " not ready within "
                        + budget.toSeconds() + " s (last: " + last + ")\n" + process.tail(40));
            }
            sleep(200);
        }
    }

    static SSLContext trusting(String pem) {
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            Collection<? extends Certificate> certs = factory.generateCertificates(
                    new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
            if (certs.isEmpty()) {
                throw new IllegalStateException("no certificate in the PEM to trust");
            }
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate c : certs) {
                store.setCertificateEntry("ca-" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build a trust store: " + e.getMessage(), e);
        }
    }

    /** {@code n} distinct free loopback ports (the kernel's choice; free when asked, so a race is retried). */
    static int[] freePorts(int n) throws IOException {
        Set<Integer> seen = new HashSet<>();
        List<Integer> ports = new ArrayList<>();
        while (ports.size() < n) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                if (seen.add(socket.getLocalPort())) {
                    ports.add(socket.getLocalPort());
                }
            }
        }
        return ports.stream().mapToInt(Integer::intValue).toArray();
    }

    private static void writeServiceAccountKey(Path file) throws IOException {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            byte[] pkcs8 = generator.generateKeyPair().getPrivate().getEncoded();
            Files.writeString(file, "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(pkcs8)
                    + "\n-----END PRIVATE KEY-----\n", StandardCharsets.US_ASCII);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot generate the service-account key", e);
        }
    }

    private static String abbreviate(String s) {
        String one = s.replace('\n', ' ');
        return one.length() > 300 ? one.substring(0, 300) + "…" : one;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
