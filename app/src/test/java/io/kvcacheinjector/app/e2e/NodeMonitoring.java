package io.kvcacheinjector.app.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * NodeE2E's Prometheus case (issue 31): the chart's monitoring objects rendered for the release NodeE2E installed, a
 * real Prometheus in the node's namespace scraping the webhook's replicas as the ServiceMonitor says, and every
 * dashboard panel's and alert's expression evaluated against what it scraped.
 */
final class NodeMonitoring implements AutoCloseable {
    /** The expressions the plot (tools/monitoring/plot) draws, saved as query_range answers. */
    static final Map<String, String> PLOTTED = plotted();
    /** The dashboard's {@code $__rate_interval} for these 2 s scrapes (Grafana's rule: at least 4 scrape intervals). */
    static final String RATE_INTERVAL = "30s";
    /**
     * The expressions that are empty on a healthy run by their nature, and why: each names a series that exists only
     * after the event it counts. Anything else that returns nothing fails the case.
     */
    static final Map<String, String> LEGITIMATELY_EMPTY = Map.of(
            "alert KvcacheInjectorCacheBlendFailedOpen",
            "the API server creates apiserver_admission_webhook_fail_open_count{name=...} at the first call it lets"
                    + " through unreviewed; a healthy run has none (tools/monitoring/rules-test.yaml fires it)");

    private final NodeCluster cluster;
    private final ChartMonitoring chart;
    private final NodePrometheus prometheus;
    private final String namespace;

    private NodeMonitoring(NodeCluster cluster, ChartMonitoring chart, NodePrometheus prometheus, String namespace) {
        this.cluster = cluster;
        this.chart = chart;
        this.prometheus = prometheus;
        this.namespace = namespace;
    }

    private static Map<String, String> plotted() {
        Map<String, String> m = new LinkedHashMap<>();
        String sel = "namespace=\"kvcache-system\", job=\"kvcache-injector\"";
        m.put("reviews_by_outcome", "sum by (outcome) (rate(kvcache_injector_admissions_total{" + sel + "}["
                + RATE_INTERVAL + "]))");
        m.put("refusals_by_code", "sum by (webhook, reason) (rate(kvcache_injector_admissions_total{" + sel
                + ", outcome=\"refused\"}[" + RATE_INTERVAL + "]))");
        for (String p : List.of("50", "90", "99")) {
            m.put("latency_p" + p, "histogram_quantile(0." + p + ", sum by (webhook, le) (rate("
                    + "kvcache_injector_admission_duration_seconds_bucket{" + sel + "}[" + RATE_INTERVAL + "])))");
        }
        m.put("memory_rss", "process_resident_memory_bytes{" + sel + "}");
        m.put("memory_heap_used", "sum by (pod) (jvm_memory_used_bytes{" + sel + ", area=\"heap\"})");
        m.put("memory_limit", "kvcache_injector_memory_limit_bytes{" + sel + "}");
        return m;
    }

    /**
     * Renders the chart's monitoring objects for the installed release ({@code helm get values}, then {@code helm
     * template} with the three {@code metrics.*} values on, inside the namespace), writes the ServiceMonitor's CA from
     * its Secret, and starts Prometheus with the equivalent scrape job and the rendered rules.
     */
    static NodeMonitoring start(NodeCluster cluster, Path repo, Path work, String release, String namespace)
            throws IOException {
        Path dir = work.resolve("prometheus");
        Files.createDirectories(dir);
        Path values = dir.resolve("release-values.yaml");
        Files.writeString(values, cluster.exec(List.of("helm", "get", "values", release, "-n", namespace, "-o",
                "yaml"), "", Duration.ofMinutes(1)).requireSuccess("helm get values").out());
        List<String> template = new ArrayList<>(List.of("helm", "template", release, "deploy/helm/kvcache-injector",
                "-n", namespace, "-f", values.toString()));
        MonitoringE2E.valuesEnabled().forEach((k, v) -> {
            if (k.startsWith("metrics.")) {
                template.addAll(List.of("--set", k + "=" + v));
            }
        });
        ChartMonitoring chart = ChartMonitoring.parse(cluster.exec(template, "", Duration.ofMinutes(1))
                .requireSuccess("helm template with the metrics values").out());
        List<ObjectNode> monitors = chart.ofKind("ServiceMonitor");
        assertThat(monitors).as("the rendered ServiceMonitor").hasSize(1);
        ObjectNode sm = monitors.getFirst();
        JsonNode ca = sm.path("spec").path("endpoints").path(0).path("tlsConfig").path("ca").path("secret");
        assertThat(ca.path("name").asText()).as("the ServiceMonitor's CA Secret").isNotBlank();
        String caB64 = cluster.kubectlOk("-n", namespace, "get", "secret", ca.path("name").asText(), "-o",
                "jsonpath={.data." + ca.path("key").asText().replace(".", "\\.") + "}");
        Path caFile = dir.resolve("ca.crt");
        Files.write(caFile, Base64.getDecoder().decode(caB64.strip()));
        String jobs = NodePrometheus.serviceMonitorJob(sm, cluster.kubeconfig(), caFile)
                + NodePrometheus.apiServerJob(Files.readString(cluster.kubeconfig()));
        NodePrometheus prometheus = NodePrometheus.start(cluster, NodePrometheus.binaries(repo, Duration.ofMinutes(30)),
                dir, jobs, chart.ruleFile());
        return new NodeMonitoring(cluster, chart, prometheus, namespace);
    }

    NodePrometheus prometheus() {
        return prometheus;
    }

    /** The {@code job} label Prometheus gave the webhook's targets (the Service's name, as the operator does). */
    String job() {
        for (JsonNode t : prometheus.activeTargets()) {
            if (t.path("scrapePool").asText().startsWith("serviceMonitor/")) {
                return t.path("labels").path("job").asText();
            }
        }
        throw new AssertionError("no target of the ServiceMonitor's job: " + prometheus.activeTargets());
    }

    /** Waits until the ServiceMonitor job has exactly {@code replicas} targets, all up; the targets' labels. */
    List<Map<String, String>> awaitTargetsUp(int replicas) {
        List<Map<String, String>> out = new ArrayList<>();
        E2eSupport.await(replicas + " webhook targets up in Prometheus", Duration.ofSeconds(90), () -> {
            out.clear();
            boolean allUp = true;
            for (JsonNode t : prometheus.activeTargets()) {
                if (t.path("scrapePool").asText().startsWith("serviceMonitor/")) {
                    allUp &= "up".equals(t.path("health").asText());
                    out.add(ChartMonitoring.JSON.convertValue(t.path("labels"), ChartMonitoring.JSON
                            .getTypeFactory().constructMapType(Map.class, String.class, String.class)));
                }
            }
            return allUp && out.size() == replicas;
        });
        return out;
    }

    /** Waits until every rule of every group has been evaluated; the rules whose health is not {@code ok}. */
    Map<String, String> awaitRulesEvaluated() {
        Map<String, String> bad = new LinkedHashMap<>();
        E2eSupport.await("every rendered rule evaluated", Duration.ofSeconds(60), () -> {
            bad.clear();
            boolean evaluated = true;
            int n = 0;
            for (JsonNode g : prometheus.ruleGroups()) {
                for (JsonNode r : g.path("rules")) {
                    n++;
                    evaluated &= !r.path("lastEvaluation").asText().startsWith("0001-");
                    if (!"ok".equals(r.path("health").asText())) {
                        bad.put(r.path("name").asText(), r.path("health").asText() + ": " + r.path("lastError").asText());
                    }
                }
            }
            return evaluated && n > 0;
        });
        return bad;
    }

    /**
     * Every dashboard panel expression (variables: the namespace and the job Prometheus found) and every alert's
     * measurement (the expression with its threshold comparison removed, {@link ChartMonitoring#measurement}):
     * {@code found} gets (what, series count), {@code empty} gets (what, the query) for each that returned none.
     */
    void evaluate(BiConsumer<String, Integer> found, BiConsumer<String, String> empty) {
        Map<String, String> vars = Map.of("namespace", namespace, "job", job());
        for (ChartMonitoring.PanelQuery p : chart.panelQueries()) {
            String q = ChartMonitoring.promql(p.expr(), RATE_INTERVAL, vars);
            int n = prometheus.query(q).size();
            if (n > 0) {
                found.accept("panel \"" + p.title() + "\" " + p.refId(), n);
            } else {
                empty.accept("panel \"" + p.title() + "\" " + p.refId(), q);
            }
        }
        for (ChartMonitoring.Alert a : chart.alerts()) {
            String q = ChartMonitoring.measurement(a.expr());
            int n = prometheus.query(q).size();
            if (n > 0) {
                found.accept("alert " + a.name(), n);
            } else {
                empty.accept("alert " + a.name(), q);
            }
        }
    }

    /** Saves query_range answers of {@link #PLOTTED} over the run (2 s steps) into {@code reports}. */
    Path saveQueryRanges(Path reports, Map<String, String> extra) throws IOException {
        long end = System.currentTimeMillis() / 1000;
        long start = prometheus.startedEpochSeconds();
        ObjectNode out = ChartMonitoring.JSON.createObjectNode();
        out.put("start", start).put("end", end).put("step", 2);
        ObjectNode meta = out.putObject("meta");
        extra.forEach(meta::put);
        ObjectNode queries = out.putObject("queries");
        for (var e : PLOTTED.entrySet()) {
            ObjectNode q = queries.putObject(e.getKey());
            q.put("expr", e.getValue());
            q.set("response", ChartMonitoring.JSON.readTree(prometheus.queryRangeRaw(e.getValue(), start, end, 2)));
        }
        Files.createDirectories(reports);
        Path file = reports.resolve("NodeE2E-prometheus-query-range.json");
        Files.writeString(file, ChartMonitoring.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(out),
                StandardCharsets.UTF_8);
        return file;
    }

    @Override
    public void close() {
        prometheus.close();
    }
}
