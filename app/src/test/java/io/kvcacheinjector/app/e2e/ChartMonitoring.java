package io.kvcacheinjector.app.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The chart's monitoring objects (values {@code metrics.serviceMonitor}, {@code metrics.prometheusRule},
 * {@code metrics.dashboard}) as {@code helm template} renders them: the Prometheus Operator objects, the alert rules
 * and the Grafana dashboard's panel expressions. Shared by MonitoringE2E (the operator's schemas) and NodeE2E (a real
 * Prometheus evaluating them).
 */
final class ChartMonitoring {
    static final String GROUP = "monitoring.coreos.com";
    static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper();

    /** One alerting rule of the PrometheusRule: its group, name and expression. */
    record Alert(String group, String name, String expr) {
    }

    /** One query of a dashboard panel: the panel's title, the target's refId and its expression. */
    record PanelQuery(String title, String refId, String expr) {
    }

    private final List<ObjectNode> objects;

    private ChartMonitoring(List<ObjectNode> objects) {
        this.objects = objects;
    }

    /** Parses {@code helm template}'s output (many YAML documents). */
    static ChartMonitoring parse(String rendered) {
        List<ObjectNode> out = new ArrayList<>();
        try (var it = YAML.readerFor(JsonNode.class).<JsonNode>readValues(rendered)) {
            while (it.hasNext()) {
                JsonNode doc = it.next();
                if (doc instanceof ObjectNode o && o.hasNonNull("kind")) {
                    out.add(o);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("helm template's output is not YAML", e);
        }
        return new ChartMonitoring(out);
    }

    List<ObjectNode> all() {
        return objects;
    }

    /** The objects of the operator's group (ServiceMonitor, PodMonitor, PrometheusRule). */
    List<ObjectNode> operatorObjects() {
        return objects.stream().filter(o -> o.path("apiVersion").asText().startsWith(GROUP + "/")).toList();
    }

    List<ObjectNode> ofKind(String kind) {
        return objects.stream().filter(o -> o.path("kind").asText().equals(kind)).toList();
    }

    /** The ConfigMaps holding a Grafana dashboard (a data entry ending in .json with "panels"). */
    List<ObjectNode> dashboards() {
        return ofKind("ConfigMap").stream().filter(c -> dashboardJson(c) != null).toList();
    }

    /** The {@code groups} of every PrometheusRule, as one array (what a Prometheus rule file holds). */
    JsonNode ruleGroups() {
        var groups = JSON.createArrayNode();
        ofKind("PrometheusRule").forEach(r -> r.path("spec").path("groups").forEach(groups::add));
        return groups;
    }

    /** The rule file for a Prometheus' {@code rule_files}: {@code {groups: [...]}} as YAML. */
    String ruleFile() {
        ObjectNode file = JSON.createObjectNode();
        file.set("groups", ruleGroups());
        try {
            return YAML.writeValueAsString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    List<Alert> alerts() {
        List<Alert> out = new ArrayList<>();
        for (JsonNode g : ruleGroups()) {
            for (JsonNode r : g.path("rules")) {
                if (r.hasNonNull("alert")) {
                    out.add(new Alert(g.path("name").asText(), r.path("alert").asText(), r.path("expr").asText()));
                }
            }
        }
        return out;
    }

    List<PanelQuery> panelQueries() {
        List<PanelQuery> out = new ArrayList<>();
        for (ObjectNode c : dashboards()) {
            collectPanels(dashboardJson(c), out);
        }
        return out;
    }

    private static void collectPanels(JsonNode node, List<PanelQuery> out) {
        for (JsonNode p : node.path("panels")) {
            for (JsonNode t : p.path("targets")) {
                if (t.hasNonNull("expr") && !t.path("expr").asText().isBlank()) {
                    out.add(new PanelQuery(p.path("title").asText(), t.path("refId").asText(), t.path("expr").asText()));
                }
            }
            collectPanels(p, out); // rows hold panels of their own
        }
    }

    static JsonNode dashboardJson(ObjectNode configMap) {
        var fields = configMap.path("data").properties();
        for (var e : fields) {
            if (e.getKey().endsWith(".json")) {
                try {
                    JsonNode d = JSON.readTree(e.getValue().asText());
                    if (d.has("panels")) {
                        return d;
                    }
                } catch (IOException ex) {
                    throw new AssertionError("dashboard " + e.getKey() + " of ConfigMap "
                            + configMap.path("metadata").path("name").asText() + " is not JSON: " + ex.getMessage());
                }
            }
        }
        return null;
    }

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{(\\w+)(?::\\w+)?\\}|\\$(\\w+)");

    /**
     * A Grafana expression made a PromQL one: {@code $__rate_interval}, {@code $__interval} and {@code $__range} become
     * {@code rateInterval}; every other variable ({@code $namespace}, {@code ${job}}) its value in {@code variables},
     * what the dashboard shows with that value selected. An unknown variable is an error.
     */
    static String promql(String grafanaExpr, String rateInterval, java.util.Map<String, String> variables) {
        Matcher m = VARIABLE.matcher(grafanaExpr);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            String value = name.startsWith("__") && List.of("__rate_interval", "__interval", "__range").contains(name)
                    ? rateInterval : variables.get(name);
            if (value == null) {
                throw new AssertionError("the dashboard expression uses $" + name + ", which the test does not know: "
                        + grafanaExpr);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static final Pattern SET_OPERATOR = Pattern.compile(
            "\\s(and|or|unless)(\\s+(on|ignoring)\\s*\\(_*\\))?\\s");
    private static final Pattern COMPARISON = Pattern.compile("(>=|<=|==|!=|>|<)");

    /**
     * An alert expression with its outermost threshold comparison removed: {@code A > B} becomes {@code A}, {@code A
     * > B and C < D} becomes {@code (A) and (C)}. An alert that is silent on a healthy webhook is legitimately empty;
     * its left operand is the measurement the alert watches, and that must return data from the running webhook. An
     * expression with no top-level comparison is returned as it is.
     */
    static String measurement(String expr) {
        String s = expr.strip();
        String masked = mask(s);
        Matcher set = SET_OPERATOR.matcher(masked);
        if (set.find()) {
            return "(" + measurement(s.substring(0, set.start())) + ") " + s.substring(set.start(), set.end()).strip()
                    + " (" + measurement(s.substring(set.end())) + ")";
        }
        Matcher cmp = COMPARISON.matcher(masked);
        return cmp.find() ? s.substring(0, cmp.start()).strip() : s;
    }

    /** {@code s} with every character inside parentheses, braces, brackets or quotes replaced by '_'. */
    private static String mask(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int depth = 0;
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' && (i == 0 || s.charAt(i - 1) != '\\')) {
                quoted = !quoted;
                out.append('_');
            } else if (quoted) {
                out.append('_');
            } else if ("({[".indexOf(c) >= 0) {
                out.append(depth == 0 ? c : '_');
                depth++;
            } else if (")}]".indexOf(c) >= 0) {
                depth--;
                out.append(depth == 0 ? c : '_');
            } else {
                out.append(depth > 0 ? '_' : c);
            }
        }
        return out.toString();
    }

    static String readString(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
