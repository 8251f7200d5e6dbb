package io.kvcacheinjector.app.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real {@code prometheus} (built by {@code tools/monitoring/build.sh}) as a host process inside the node's network
 * namespace, like the control plane's processes: started through {@code cluster.sh exec}, stopped by its pid. It
 * scrapes the webhook as the chart's ServiceMonitor describes it (Kubernetes service discovery of role
 * {@code endpoints} against the node's API server with the admin kubeconfig, the Service's selector labels, the port
 * named in the endpoint, HTTPS verified with the CA the ServiceMonitor names and its {@code serverName}, the
 * operator's target labels) and the API server itself, and evaluates the chart's rendered alert rules. Every query
 * goes to {@code 127.0.0.1} inside the namespace through {@code cluster.sh exec curl}: this JVM sends it no packet.
 */
final class NodePrometheus implements AutoCloseable {
    static final String PROPERTY = "kvcache.e2e.prometheus";
    private static final int PORT = 19090;
    private static final String SCRAPE_INTERVAL = "2s";

    private final NodeCluster cluster;
    private final Path dir;
    private final Process process;
    private final long started;

    private NodePrometheus(NodeCluster cluster, Path dir, Process process) {
        this.cluster = cluster;
        this.dir = dir;
        this.process = process;
        this.started = System.currentTimeMillis() / 1000;
    }

    /**
     * The folder holding {@code prometheus}: {@code -Dkvcache.e2e.prometheus}, else the last line of
     * {@code tools/monitoring/build.sh} (cached builds answer at once), else an AssertionError naming the command.
     */
    static Path binaries(Path repo, Duration buildBudget) {
        String given = System.getProperty(PROPERTY, "");
        String how = "run tools/monitoring/build.sh (builds prometheus and promtool from the Go module, cached) and"
                + " pass its last line as -D" + PROPERTY + "=<dir>; .ci/e2e does both";
        if (!given.isBlank()) {
            Path dir = Path.of(given);
            if (!Files.isExecutable(dir.resolve("prometheus"))) {
                throw new AssertionError(dir + " holds no executable prometheus: " + how);
            }
            return dir;
        }
        Path script = repo.resolve("tools/monitoring/build.sh");
        if (!Files.isExecutable(script)) {
            throw new AssertionError("no prometheus given and no " + script + ": " + how);
        }
        try {
            Process p = new ProcessBuilder(script.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(buildBudget.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
                throw new AssertionError("tools/monitoring/build.sh failed: " + how);
            }
            return Path.of(out.strip().lines().reduce((a, b) -> b).orElseThrow());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The scrape job equivalent to the rendered ServiceMonitor {@code sm} (what the Prometheus Operator generates for
     * it: keep the Services with the selector's labels in the selected namespaces, keep the endpoint port named
     * {@code port}, label the target with namespace, service, pod, container, endpoint, and {@code job} = the
     * Service's name).
     */
    static String serviceMonitorJob(ObjectNode sm, Path kubeconfig, Path caFile) {
        String ns = sm.path("metadata").path("namespace").asText();
        String name = sm.path("metadata").path("name").asText();
        JsonNode spec = sm.path("spec");
        List<String> namespaces = new ArrayList<>();
        spec.path("namespaceSelector").path("matchNames").forEach(n -> namespaces.add(n.asText()));
        if (namespaces.isEmpty()) {
            namespaces.add(ns);
        }
        StringBuilder y = new StringBuilder();
        int i = 0;
        for (JsonNode ep : spec.path("endpoints")) {
            y.append("- job_name: serviceMonitor/").append(ns).append('/').append(name).append('/').append(i++).append('\n')
                    .append("  scrape_interval: ").append(SCRAPE_INTERVAL).append('\n')
                    .append("  scrape_timeout: ").append(SCRAPE_INTERVAL).append('\n')
                    .append("  scheme: ").append(ep.path("scheme").asText("http")).append('\n')
                    .append("  metrics_path: ").append(ep.path("path").asText("/metrics")).append('\n')
                    .append("  tls_config:\n    ca_file: ").append(caFile).append('\n')
                    .append("    server_name: ").append(ep.path("tlsConfig").path("serverName").asText()).append('\n')
                    .append("  kubernetes_sd_configs:\n  - role: endpoints\n    kubeconfig_file: ").append(kubeconfig)
                    .append("\n    namespaces:\n      names: [").append(String.join(", ", namespaces)).append("]\n")
                    .append("  relabel_configs:\n");
            spec.path("selector").path("matchLabels").properties().forEach(l -> y
                    .append("  - {action: keep, source_labels: [__meta_kubernetes_service_label_")
                    .append(l.getKey().replaceAll("[^a-zA-Z0-9_]", "_")).append("], regex: '")
                    .append(Pattern.quote(l.getValue().asText()).replace("'", "''")).append("'}\n"));
            y.append("  - {action: keep, source_labels: [__meta_kubernetes_endpoint_port_name], regex: '")
                    .append(ep.path("port").asText()).append("'}\n")
                    .append("  - {source_labels: [__meta_kubernetes_namespace], target_label: namespace}\n")
                    .append("  - {source_labels: [__meta_kubernetes_service_name], target_label: service}\n")
                    .append("  - {source_labels: [__meta_kubernetes_pod_name], target_label: pod}\n")
                    .append("  - {source_labels: [__meta_kubernetes_pod_container_name], target_label: container}\n")
                    .append("  - {source_labels: [__meta_kubernetes_service_name], target_label: job}\n")
                    .append("  - {target_label: endpoint, replacement: '").append(ep.path("port").asText()).append("'}\n");
        }
        return y.toString();
    }

    /** The API server's own /metrics (for the alert on apiserver_admission_webhook_fail_open_count), with the admin token. */
    static String apiServerJob(String kubeconfig) {
        Matcher server = Pattern.compile("server: https://(\\S+)").matcher(kubeconfig);
        Matcher ca = Pattern.compile("certificate-authority: (\\S+)").matcher(kubeconfig);
        Matcher token = Pattern.compile("token: (\\S+)").matcher(kubeconfig);
        if (!server.find() || !ca.find() || !token.find()) {
            throw new IllegalStateException("the admin kubeconfig has no server, CA file or token:\n" + kubeconfig);
        }
        return "- job_name: apiserver\n  scrape_interval: " + SCRAPE_INTERVAL + "\n  scheme: https\n"
                + "  tls_config: {ca_file: " + ca.group(1) + "}\n"
                + "  authorization: {credentials: " + token.group(1) + "}\n"
                + "  static_configs: [{targets: ['" + server.group(1) + "']}]\n";
    }

    static NodePrometheus start(NodeCluster cluster, Path binaries, Path dir, String scrapeJobs, String ruleFile)
            throws IOException {
        Files.createDirectories(dir.resolve("data"));
        Files.writeString(dir.resolve("rules.yaml"), ruleFile);
        Files.writeString(dir.resolve("prometheus.yml"), "global:\n  scrape_interval: " + SCRAPE_INTERVAL
                + "\n  evaluation_interval: " + SCRAPE_INTERVAL + "\nrule_files: [" + dir.resolve("rules.yaml")
                + "]\nscrape_configs:\n" + scrapeJobs);
        Process p = cluster.spawn(List.of(binaries.resolve("prometheus").toString(),
                "--config.file=" + dir.resolve("prometheus.yml"), "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + PORT, "--storage.tsdb.retention.time=1d"),
                dir.resolve("prometheus.log"));
        NodePrometheus prometheus = new NodePrometheus(cluster, dir, p);
        E2eSupport.await("prometheus /-/ready inside the node's namespace", Duration.ofSeconds(60), () -> {
            if (!p.isAlive()) {
                throw new IllegalStateException("prometheus exited " + p.exitValue() + ":\n" + prometheus.logTail());
            }
            return prometheus.get("/-/ready").contains("Ready");
        });
        return prometheus;
    }

    long startedEpochSeconds() {
        return started;
    }

    Path dir() {
        return dir;
    }

    String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("prometheus.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** A GET on loopback inside the namespace; its body ("" on a connection error). */
    String get(String path, String... form) {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "30", "-G"));
        for (String f : form) {
            command.add("--data-urlencode");
            command.add(f);
        }
        command.add("http://127.0.0.1:" + PORT + path);
        NodeCluster.Result r = cluster.exec(command, "", Duration.ofSeconds(40));
        return r.exit() == 0 ? r.out() : "";
    }

    JsonNode api(String path, String... form) {
        String body = get(path, form);
        try {
            JsonNode json = ChartMonitoring.JSON.readTree(body);
            if (!"success".equals(json.path("status").asText())) {
                throw new AssertionError("prometheus " + path + " " + String.join(" ", form) + " answered " + body);
            }
            return json.path("data");
        } catch (IOException e) {
            throw new AssertionError("prometheus " + path + " answered no JSON: " + body, e);
        }
    }

    /** An instant query's result vector (or matrix/scalar) array. */
    JsonNode query(String expr) {
        return api("/api/v1/query", "query=" + expr).path("result");
    }

    String queryRangeRaw(String expr, long start, long end, int stepSeconds) {
        return get("/api/v1/query_range", "query=" + expr, "start=" + start, "end=" + end, "step=" + stepSeconds);
    }

    JsonNode activeTargets() {
        return api("/api/v1/targets", "state=active").path("activeTargets");
    }

    JsonNode ruleGroups() {
        return api("/api/v1/rules").path("groups");
    }

    Optional<String> targetError(String job) {
        for (JsonNode t : activeTargets()) {
            if (t.path("labels").path("job").asText().equals(job) && !"up".equals(t.path("health").asText())) {
                return Optional.of(t.path("scrapeUrl").asText() + ": " + t.path("lastError").asText());
            }
        }
        return Optional.empty();
    }

    /** Stops the process by its pid (SIGTERM, SIGKILL after 15 s), and the {@code cluster.sh exec} around it. */
    @Override
    public void close() {
        List<ProcessHandle> children = process.descendants().toList();
        for (ProcessHandle h : children) {
            if (h.info().command().map(c -> c.endsWith("/prometheus")).orElse(false)) {
                h.destroy();
                try {
                    h.onExit().get(15, TimeUnit.SECONDS);
                } catch (Exception e) {
                    h.destroyForcibly();
                }
            }
        }
        process.destroy();
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static Map<String, String> labels(JsonNode series) {
        return ChartMonitoring.JSON.convertValue(series.path("metric"), ChartMonitoring.JSON.getTypeFactory()
                .constructMapType(Map.class, String.class, String.class));
    }
}
