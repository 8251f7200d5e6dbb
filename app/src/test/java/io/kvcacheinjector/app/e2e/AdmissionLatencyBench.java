package io.kvcacheinjector.app.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 32's side-by-side benchmark: admission latency as the API server sees it, for this webhook and for a
 * trivial one, on one real node at the same time. Not a test: it prints numbers and asserts only that the set-up did
 * what it says (both webhooks called, every create answered 201 with its webhook's mark).
 *
 * <p>The node is {@code tools/e2e/cluster.sh}'s (as {@link NodeE2E}'s). On it: the project's image installed by the
 * tutorial's {@code helm install} (two replicas, the chart's defaults) with the tutorial's pool and Binding; beside
 * it {@code kvci.local/trivial-webhook:1} (tools/e2e/images/cmd/trivialwebhook: Go's standard library, decode, one
 * annotation and one env var, encode, one log line; one replica behind its own Service, registered with
 * {@code failurePolicy: Fail} for Pods labelled {@code trivial: "true"}). Two {@link NodeLoad} clients, one per
 * webhook, send dry-run Pod creates through the API server at the same rate at the same time, for each rate in
 * {@code -Dkvcache.bench.rates} (default 10,50) for {@code -Dkvcache.bench.seconds} each (default 60). For each rate it
 * prints, per webhook, the API server's {@code apiserver_admission_webhook_admission_duration_seconds} over that
 * window (calls, share at or under 5 ms, estimated p50 and p99) and the client's own timings (p50, p99), then the
 * ratios ours / trivial. Command: docs/explanation/performance.md, "Admission latency as the API server sees it".
 */
@Timeout(value = 60, unit = TimeUnit.MINUTES)
class AdmissionLatencyBench {
    static final String OURS = "inject.kvcache.kvcache-injector.io";
    static final String TRIVIAL = "trivial.kvcache-bench.io";
    private static final String SYSTEM = "kvcache-system";
    private static final String BENCH_NS = "kvcache-bench";
    private static final String STUB = "kvci.local/engine-stub:1";

    private static Path repo;
    private static Path work;
    private static NodeCluster cluster;

    @BeforeAll
    static void startTheNodeAndInstallBothWebhooks() throws Exception {
        Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux"),
                "AdmissionLatencyBench: SKIPPED: a node needs Linux");
        Assumptions.assumeTrue(NodeE2E.uid() == 0, "AdmissionLatencyBench: SKIPPED: a node needs root");
        repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        ControlPlaneBinaries.Found found = ControlPlaneBinaries.locate(repo, System.getenv());
        if (found instanceof ControlPlaneBinaries.Unavailable u) {
            Assumptions.abort("AdmissionLatencyBench: SKIPPED: " + u.reason());
        }
        Path assets = ((ControlPlaneBinaries.Available) found).dir();
        Assumptions.assumeTrue(Files.isExecutable(assets.resolve("kubelet")),
                "AdmissionLatencyBench: SKIPPED: " + assets + " has no kubelet");
        work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "kvcache-latency-bench");
        Path image = webhookImage();
        Path stubs = Path.of(run(List.of(repo.resolve("tools/e2e/images.sh").toString(),
                work.resolve("images").toString()), Duration.ofMinutes(5)).strip());
        cluster = NodeCluster.start(repo, assets, work.resolve("cluster"), List.of(stubs.resolve("pause.tar"),
                stubs.resolve("engine-stub.tar"), stubs.resolve("trivial-webhook.tar"), image), List.of());

        String tutorial = Files.readString(repo.resolve("docs/tutorial/install-and-first-pod.md"));
        for (DocBlocks.Block b : DocBlocks.parse(tutorial, "install-and-first-pod.md")) {
            if (b.kind() == DocBlocks.Kind.NODE || b.kind() == DocBlocks.Kind.RUN && b.text().contains("kind: KVCachePool\n")) {
                NodeCluster.Result r = cluster.exec(List.of("bash", "-euo", "pipefail", "-c", b.text()), "",
                        Duration.ofMinutes(4));
                assertThat(r.exit()).as("the tutorial's block at line %d printed:\n%s%s", b.line(), r.out(), r.err())
                        .isZero();
            }
        }
        installTheTrivialWebhook();
    }

    @AfterAll
    static void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void bothWebhooksDrivenSideBySide() throws Exception {
        int seconds = Integer.getInteger("kvcache.bench.seconds", 60);
        List<Double> rates = new ArrayList<>();
        for (String r : System.getProperty("kvcache.bench.rates", "10,50").split(",")) {
            rates.add(Double.parseDouble(r.strip()));
        }
        // a few creates of each first: connections, the JIT, both webhooks' first calls
        drive(5, 10, "warm-up");
        StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, "%-8s %-9s %7s %9s %9s %9s %11s %11s%n", "rate", "webhook", "calls",
                "<= 5 ms", "p50 ms", "p99 ms", "client p50", "client p99"));
        for (double rate : rates) {
            Window w = drive(rate, seconds, "rate " + rate);
            table.append(w.ours().row(rate, "ours")).append(w.trivial().row(rate, "trivial"))
                    .append(w.ours().ratiosTo(w.trivial(), rate));
        }
        System.out.println("\nbench: admission latency, side by side on one node (" + seconds + " s per rate, "
                + "dry-run Pod creates through the API server; API server: apiserver_admission_webhook_admission_"
                + "duration_seconds, share <= 5 ms and quantiles estimated in its buckets; client: NodeLoad)\n" + table);
    }

    /** One webhook's figures over a window: the API server's histogram of its calls, and the client's timings. */
    private record Stats(long calls, double share5ms, double p50ms, double p99ms, long clientP50, long clientP99) {
        static Stats of(String name, MetricsSnapshot before, MetricsSnapshot after, List<Long> client) {
            Map<String, String> m = Map.of("name", name, "operation", "CREATE", "type", "admit");
            Map<String, String> le = new LinkedHashMap<>(m);
            le.put("le", "0.005");
            double calls = after.total(MetricsSnapshot.DURATION + "_count", m)
                    - before.total(MetricsSnapshot.DURATION + "_count", m);
            double under = after.total(MetricsSnapshot.DURATION + "_bucket", le)
                    - before.total(MetricsSnapshot.DURATION + "_bucket", le);
            return new Stats((long) calls, calls == 0 ? Double.NaN : under / calls,
                    after.quantile(MetricsSnapshot.DURATION, m, before, 0.5) * 1000,
                    after.quantile(MetricsSnapshot.DURATION, m, before, 0.99) * 1000, pct(client, 0.5),
                    pct(client, 0.99));
        }

        String row(double rate, String who) {
            return String.format(Locale.ROOT, "%-8s %-9s %7d %8.0f%% %9.2f %9.2f %11d %11d%n", rate + "/s", who,
                    calls, share5ms * 100, p50ms, p99ms, clientP50, clientP99);
        }

        String ratiosTo(Stats base, double rate) {
            return String.format(Locale.ROOT, "%-8s %-9s %7s %8.2fx %8.2fx %8.2fx %10.2fx %10.2fx%n", rate + "/s",
                    "ours/triv", "", share5ms / base.share5ms, p50ms / base.p50ms, p99ms / base.p99ms,
                    (double) clientP50 / base.clientP50, (double) clientP99 / base.clientP99);
        }
    }

    /** One measured window: both loads at one rate, the API server's metrics around it. */
    private record Window(Stats ours, Stats trivial) {
    }

    private static Window drive(double rate, int seconds, String what) throws Exception {
        MetricsSnapshot before = apiServerMetrics();
        Process ours = load("ours", ourPod(), rate, seconds);
        Process trivial = load("trivial", trivialPod(), rate, seconds);
        List<String[]> oursLines = finish(ours, "ours");
        List<String[]> trivialLines = finish(trivial, "trivial");
        MetricsSnapshot after = apiServerMetrics();
        // every create answered 201 and carries its webhook's mark (the record; the trivial annotation)
        assertThat(oursLines).as("%s: our creates not injected (start ms, latency ms, status, injected, error)", what)
                .allSatisfy(l -> assertThat(l[2] + " " + l[3]).isEqualTo("201 true"));
        assertThat(trivialLines).as("%s: trivial creates not answered 201", what)
                .allSatisfy(l -> assertThat(l[2]).isEqualTo("201"));
        return new Window(Stats.of(OURS, before, after, latencies(oursLines)),
                Stats.of(TRIVIAL, before, after, latencies(trivialLines)));
    }

    private static Process load(String name, String podJson, double rate, int seconds)
            throws IOException, URISyntaxException {
        Path pod = work.resolve(name + "-pod.json");
        Files.writeString(pod, podJson);
        Path out = work.resolve(name + "-load.txt");
        Files.deleteIfExists(out);
        String java = ProcessHandle.current().info().command().orElse("java");
        String classes = Path.of(NodeLoad.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        return cluster.spawn(List.of(java, "-cp", classes, NodeLoad.class.getName(), cluster.kubeconfig().toString(),
                name.equals("ours") ? "team-a" : BENCH_NS, pod.toString(), Double.toString(rate),
                Integer.toString(seconds), out.toString(), work.resolve(name + "-load.stop").toString()),
                work.resolve(name + "-load.log"));
    }

    private static List<String[]> finish(Process p, String name) throws IOException, InterruptedException {
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("the " + name + " load did not end");
        }
        assertThat(p.exitValue()).as("the %s load's exit:\n%s", name,
                Files.readString(work.resolve(name + "-load.log"))).isZero();
        List<String[]> lines = new ArrayList<>();
        for (String l : Files.readAllLines(work.resolve(name + "-load.txt"))) {
            if (!l.isBlank()) {
                lines.add(l.split(" ", 5));
            }
        }
        return lines;
    }

    private static List<Long> latencies(List<String[]> lines) {
        return lines.stream().map(l -> Long.parseLong(l[1])).sorted().toList();
    }

    private static long pct(List<Long> sorted, double q) {
        return sorted.isEmpty() ? -1 : sorted.get((int) Math.min(sorted.size() - 1, Math.round(sorted.size() * q)));
    }

    private static String ourPod() {
        return pod("team-a", "\"kvcache.gpustack.ai/inject\":\"true\"");
    }

    /** The same Pod for the trivial webhook: its label instead of ours; NodeLoad's "injected" is false for it. */
    private static String trivialPod() {
        return pod(BENCH_NS, "\"trivial\":\"true\"");
    }

    private static String pod(String namespace, String label) {
        return """
                {"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"bench-","namespace":"%s",
                 "labels":{%s},
                 "annotations":{"kvcache.gpustack.ai/binding":"chat","kvcache.gpustack.ai/engine":"vLLM"}},
                 "spec":{"containers":[{"name":"server","image":"%s","command":["vllm"],
                 "args":["serve","--model","Qwen/Qwen3-8B"]}]}}
                """.formatted(namespace, label, STUB);
    }

    /** A CA and a serving certificate by openssl, the Secret, one replica, its Service, its registration. */
    private static void installTheTrivialWebhook() throws IOException {
        Path pki = work.resolve("trivial-pki");
        Files.createDirectories(pki);
        String host = "trivial-webhook." + BENCH_NS + ".svc";
        run(List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", pki.resolve("ca.key").toString(), "-out", pki.resolve("ca.crt").toString(), "-days", "2",
                "-subj", "/CN=trivial-webhook-ca"), Duration.ofMinutes(1));
        run(List.of("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                pki.resolve("tls.key").toString(), "-out", pki.resolve("tls.csr").toString(), "-subj", "/CN=" + host),
                Duration.ofMinutes(1));
        Files.writeString(pki.resolve("san.ext"), "subjectAltName=DNS:" + host + "\n");
        run(List.of("openssl", "x509", "-req", "-in", pki.resolve("tls.csr").toString(), "-CA",
                pki.resolve("ca.crt").toString(), "-CAkey", pki.resolve("ca.key").toString(), "-CAcreateserial",
                "-days", "2", "-extfile", pki.resolve("san.ext").toString(), "-out", pki.resolve("tls.crt").toString()),
                Duration.ofMinutes(1));
        cluster.kubectlOk("create", "namespace", BENCH_NS);
        cluster.kubectlOk("-n", BENCH_NS, "create", "secret", "tls", "trivial-webhook-tls", "--cert",
                pki.resolve("tls.crt").toString(), "--key", pki.resolve("tls.key").toString());
        String caBundle = Base64.getEncoder().encodeToString(Files.readAllBytes(pki.resolve("ca.crt")));
        NodeCluster.Result applied = cluster.kubectlIn("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: trivial-webhook, namespace: %1$s}
                spec:
                  replicas: 1
                  selector: {matchLabels: {app: trivial-webhook}}
                  template:
                    metadata: {labels: {app: trivial-webhook}}
                    spec:
                      containers:
                        - name: webhook
                          image: kvci.local/trivial-webhook:1
                          imagePullPolicy: Never
                          args: ["--port", "8443", "--cert", "/tls/tls.crt", "--key", "/tls/tls.key"]
                          ports: [{name: https, containerPort: 8443}]
                          readinessProbe: {httpGet: {path: /healthz, port: 8443, scheme: HTTPS}, periodSeconds: 1}
                          resources: {requests: {cpu: 50m, memory: 32Mi}, limits: {memory: 64Mi}}
                          securityContext: {runAsNonRoot: true, runAsUser: 65532, readOnlyRootFilesystem: true,
                                            allowPrivilegeEscalation: false}
                          volumeMounts: [{name: tls, mountPath: /tls, readOnly: true}]
                      volumes: [{name: tls, secret: {secretName: trivial-webhook-tls}}]
                ---
                apiVersion: v1
                kind: Service
                metadata: {name: trivial-webhook, namespace: %1$s}
                spec:
                  selector: {app: trivial-webhook}
                  ports: [{name: https, port: 443, targetPort: 8443}]
                ---
                apiVersion: admissionregistration.k8s.io/v1
                kind: MutatingWebhookConfiguration
                metadata: {name: trivial-webhook}
                webhooks:
                  - name: %2$s
                    admissionReviewVersions: [v1]
                    sideEffects: None
                    failurePolicy: Fail
                    timeoutSeconds: 10
                    objectSelector: {matchLabels: {trivial: "true"}}
                    rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
                    clientConfig:
                      service: {namespace: %1$s, name: trivial-webhook, path: /mutate, port: 443}
                      caBundle: %3$s
                """.formatted(BENCH_NS, TRIVIAL, caBundle), "apply", "-f", "-");
        assertThat(applied.exit()).as("kubectl apply of the trivial webhook:\n%s%s", applied.out(), applied.err())
                .isZero();
        NodeCluster.Result ready = cluster.exec(List.of("kubectl", "-n", BENCH_NS, "rollout", "status",
                "deployment/trivial-webhook", "--timeout=2m"), "", Duration.ofMinutes(3));
        assertThat(ready.exit()).as("the trivial webhook's rollout:\n%s%s", ready.out(), ready.err()).isZero();
        // its patch arrives: one annotation, one env var
        String dryRun = cluster.kubectlIn(trivialPod(), "create", "--dry-run=server", "-o",
                "jsonpath={.metadata.annotations.trivial\\.kvcache-injector\\.io/seen} {.spec.containers[0].env[0].name}",
                "-f", "-").out();
        assertThat(dryRun).as("the trivial webhook's mark on a dry-run create").isEqualTo("true TRIVIAL_WEBHOOK");
    }

    private static MetricsSnapshot apiServerMetrics() {
        return MetricsSnapshot.parse(cluster.kubectlOk("get", "--raw", "/metrics"));
    }

    private static Path webhookImage() {
        String given = System.getProperty("kvcache.e2e.image", "").trim();
        if (!given.isEmpty()) {
            return Path.of(given);
        }
        run(List.of(repo.resolve("deploy/image.sh").toString()), Duration.ofMinutes(25));
        return repo.resolve("app/target/image/kvcache-injector.tar");
    }

    private static String run(List<String> command, Duration timeout) {
        try {
            Process p = new ProcessBuilder(command).directory(repo.toFile()).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
                throw new AssertionError(String.join(" ", command) + " failed:\n"
                        + new String(out, StandardCharsets.UTF_8));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError("cannot run " + command + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
