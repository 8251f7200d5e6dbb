package io.kvcacheinjector.adapters.k8s.chart;

import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.NAMESPACE;
import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.render;
import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code metrics.*}: the ServiceMonitor, PrometheusRule and Grafana dashboard ConfigMap (docs/how-to/monitor-the-webhook.md;
 * docs/explanation/decisions.md, "Monitoring objects in the chart (issue 31)"), rendered by a real Helm. The alerts'
 * behaviour on series is promtool's to test (tools/monitoring/rules-test.yaml).
 */
class MonitoringValuesTest {
    private static final String FULLNAME = "kvi-kvcache-injector";
    private static final Pattern LATENCY = Pattern.compile(
            "histogram_quantile\\(0\\.99, .*kvcache_injector_admission_duration_seconds_bucket.*\\) >= ([0-9.]+)$");

    @Test
    void nothingNewIsRenderedByDefault() {
        RenderedChart chart = render();
        assertThat(chart.kinds()).doesNotContain("ServiceMonitor", "PodMonitor", "PrometheusRule", "ConfigMap");
    }

    @Test
    void theServiceMonitorScrapesTheServicesHttpsPortWithTheChartsCaUnderANameTheCertificateHolds() throws Exception {
        RenderedChart chart = render(values("metrics.serviceMonitor.enabled", true));
        Map<String, Object> monitor = only(chart, "ServiceMonitor");
        assertThat(monitor.get("apiVersion")).isEqualTo("monitoring.coreos.com/v1");
        assertThat(map(monitor, "metadata").get("namespace")).isEqualTo(NAMESPACE);

        // it selects the webhook's Service, in the release namespace, by the Service's own labels
        Service service = chart.one(Service.class, "Service");
        Map<String, Object> spec = map(monitor, "spec");
        assertThat(service.getMetadata().getLabels()).containsAllEntriesOf(strings(map(spec, "selector"), "matchLabels"));
        assertThat(strings(map(spec, "selector"), "matchLabels"))
                .isEqualTo(chart.one(Deployment.class, "Deployment").getSpec().getSelector().getMatchLabels());
        assertThat(map(spec, "namespaceSelector").get("matchNames")).isEqualTo(List.of(NAMESPACE));

        Map<String, Object> endpoint = list(spec, "endpoints").getFirst();
        assertThat(endpoint.get("port")).as("the Service port's name").isEqualTo(service.getSpec().getPorts().getFirst().getName());
        assertThat(endpoint).containsEntry("scheme", "https").containsEntry("path", "/metrics")
                .containsEntry("interval", "30s").containsEntry("scrapeTimeout", "10s");

        // the CA is ca.crt of the Secret the Deployment serves from, and the certificate it signed holds serverName
        Map<String, Object> tls = map(endpoint, "tlsConfig");
        Map<String, Object> caRef = map(map(tls, "ca"), "secret");
        Secret secret = chart.one(Secret.class, "Secret");
        assertThat(caRef).containsEntry("name", secret.getMetadata().getName()).containsEntry("key", "ca.crt");
        assertThat(chart.one(Deployment.class, "Deployment").getSpec().getTemplate().getSpec().getVolumes())
                .filteredOn(v -> v.getSecret() != null).extracting(v -> v.getSecret().getSecretName())
                .contains(secret.getMetadata().getName());
        X509Certificate ca = certificate(secret.getData().get("ca.crt"));
        X509Certificate serving = certificate(secret.getData().get("tls.crt"));
        serving.verify(ca.getPublicKey());
        String serverName = (String) tls.get("serverName");
        assertThat(serverName).isEqualTo(FULLNAME + "." + NAMESPACE + ".svc");
        assertThat(serving.getSubjectAlternativeNames().stream().map(san -> String.valueOf(san.get(1))).toList())
                .contains(serverName);
    }

    @Test
    void withCertManagerTheServiceMonitorTrustsTheCaCertManagerWritesAndTheCertificatesDnsName() {
        RenderedChart chart = render(values("metrics.serviceMonitor.enabled", true, "tls.certManager.enabled", true));
        Map<String, Object> tls = map(list(map(only(chart, "ServiceMonitor"), "spec"), "endpoints").getFirst(), "tlsConfig");
        Map<String, Object> certificate = map(only(chart, "Certificate"), "spec");
        assertThat(map(map(tls, "ca"), "secret")).containsEntry("name", certificate.get("secretName"))
                .containsEntry("key", "ca.crt");
        assertThat(certificate.get("dnsNames")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST)
                .contains(tls.get("serverName"));
    }

    @Test
    void theServiceMonitorsLabelsIntervalTimeoutAndCaAreTheValuesGiven() {
        Map<String, Object> monitor = only(render(values("metrics.serviceMonitor.enabled", true,
                "metrics.serviceMonitor.labels.release", "kube-prometheus-stack",
                "metrics.serviceMonitor.interval", "1m", "metrics.serviceMonitor.scrapeTimeout", "",
                "metrics.serviceMonitor.ca.configMap.name", "webhook-ca",
                "metrics.serviceMonitor.ca.configMap.key", "ca.pem")), "ServiceMonitor");
        assertThat(strings(monitor, "metadata", "labels")).containsEntry("release", "kube-prometheus-stack")
                .containsEntry("app.kubernetes.io/instance", "kvi");
        Map<String, Object> endpoint = list(map(monitor, "spec"), "endpoints").getFirst();
        assertThat(endpoint).containsEntry("interval", "1m").doesNotContainKey("scrapeTimeout");
        assertThat(map(map(endpoint, "tlsConfig"), "ca"))
                .isEqualTo(Map.of("configMap", Map.of("name", "webhook-ca", "key", "ca.pem")));
        assertThatThrownBy(() -> render(values("metrics.serviceMonitor.enabled", true,
                "metrics.serviceMonitor.interval", "thirty seconds"))).hasMessageContaining("interval");
    }

    @Test
    void aServiceMonitorWithoutAReplicaInTheClusterIsRefused() {
        assertThatThrownBy(() -> render(values("metrics.serviceMonitor.enabled", true, "replicaCount", 0,
                "webhook.url", "https://hooks.example"))).hasMessageContaining("replicaCount > 0");
    }

    @Test
    void theLatencyThresholdIsTheShareOfWebhookTimeoutSecondsCappedAtTheLargestBucket() {
        assertThat(latencyThreshold(values())).isEqualTo("5");
        assertThat(latencyThreshold(values("webhook.timeoutSeconds", 4))).isEqualTo("2");
        assertThat(latencyThreshold(values("webhook.timeoutSeconds", 3))).isEqualTo("1.5");
        assertThat(latencyThreshold(values("metrics.prometheusRule.latencyBudgetRatio", 0.8))).isEqualTo("8");
        assertThat(latencyThreshold(values("webhook.timeoutSeconds", 30))).isEqualTo("10");
    }

    @Test
    void everyAlertHasASeverityASummaryADescriptionAndARunbookAnchorOnTheTroubleshootingPage() throws Exception {
        List<Map<String, Object>> rules = rules(values("metrics.prometheusRule.labels.release", "kps"));
        assertThat(rules).extracting(r -> r.get("alert")).containsExactly("KvcacheInjectorNoReadyReplica",
                "KvcacheInjectorAdmissionErrors", "KvcacheInjectorRefusalsRising", "KvcacheInjectorCertificateExpiring",
                "KvcacheInjectorCertificateExpiryCritical", "KvcacheInjectorTlsReloadFailing",
                "KvcacheInjectorAdmissionSlow", "KvcacheInjectorCacheBlendFailedOpen");
        String page = Files.readString(RenderedChart.repoRoot().resolve("docs/how-to/troubleshooting.md"));
        for (Map<String, Object> rule : rules) {
            String alert = (String) rule.get("alert");
            assertThat(strings(rule, "labels").get("severity")).as(alert).isIn("warning", "critical");
            Map<String, String> annotations = strings(rule, "annotations");
            assertThat(annotations.get("summary")).as(alert).isNotBlank();
            assertThat(annotations.get("description")).as(alert).isNotBlank();
            assertThat(annotations.get("runbook_url")).as(alert).isEqualTo(
                    "https://github.com/kvcache-injector/kvcache-injector/blob/main/docs/how-to/troubleshooting.md#alert-"
                            + alert.toLowerCase());
            assertThat(page).as(alert + "'s runbook section").contains("### Alert: `" + alert + "`\n");
        }
        assertThat(rules).filteredOn(r -> !"KvcacheInjectorCacheBlendFailedOpen".equals(r.get("alert")))
                .allSatisfy(r -> assertThat((String) r.get("expr"))
                        .contains("job=\"" + FULLNAME + "\", namespace=\"" + NAMESPACE + "\""));
    }

    @Test
    void theSelectorBaseUrlAndThresholdsAreTheValuesGiven() {
        List<Map<String, Object>> rules = rules(values("metrics.prometheusRule.selector", "service=\"kvi\"",
                "metrics.prometheusRule.runbookBaseUrl", "https://wiki.example/kvi/",
                "metrics.prometheusRule.errorsPerSecond", 0.5, "metrics.prometheusRule.certificateWarningDays", 21));
        assertThat(rules).filteredOn(r -> !"KvcacheInjectorCacheBlendFailedOpen".equals(r.get("alert")))
                .allSatisfy(r -> assertThat((String) r.get("expr")).contains("service=\"kvi\"").doesNotContain("job="));
        assertThat(strings(rule(rules, "KvcacheInjectorNoReadyReplica"), "annotations").get("runbook_url"))
                .isEqualTo("https://wiki.example/kvi#alert-kvcacheinjectornoreadyreplica");
        assertThat((String) rule(rules, "KvcacheInjectorAdmissionErrors").get("expr")).endsWith("[5m])) > 0.5");
        assertThat((String) rule(rules, "KvcacheInjectorCertificateExpiring").get("expr")).endsWith("< 21 * 86400");
        assertThatThrownBy(() -> rules(values("metrics.prometheusRule.certificateCriticalDays", 14)))
                .hasMessageContaining("certificateCriticalDays");
    }

    @Test
    void theFailOpenAlertExistsOnlyWhileTheCacheBlendWebhookIsRegisteredWithFailurePolicyIgnore() {
        assertThat(alerts(values())).contains("KvcacheInjectorCacheBlendFailedOpen");
        assertThat(alerts(values("cacheBlend.contract.failClosed", true))).doesNotContain("KvcacheInjectorCacheBlendFailedOpen");
        assertThat(alerts(values("cacheBlend.contract.enabled", false))).doesNotContain("KvcacheInjectorCacheBlendFailedOpen");
        assertThat(alerts(values("webhook.enabled", false))).doesNotContain("KvcacheInjectorCacheBlendFailedOpen");
        assertThat(alerts(values("metrics.prometheusRule.apiServerFailOpen", false)))
                .doesNotContain("KvcacheInjectorCacheBlendFailedOpen");
        // no replica in the cluster (webhook.url): readiness is not this release's to watch
        assertThat(alerts(values("replicaCount", 0, "webhook.url", "https://hooks.example")))
                .doesNotContain("KvcacheInjectorNoReadyReplica").contains("KvcacheInjectorAdmissionErrors");
    }

    @Test
    void theDashboardConfigMapHoldsTheChartsDashboardLabelledForGrafanasSidecar() throws Exception {
        Map<String, Object> configMap = only(render(values("metrics.dashboard.enabled", true)), "ConfigMap");
        assertThat(map(configMap, "metadata")).containsEntry("name", FULLNAME + "-dashboard").containsEntry("namespace", NAMESPACE);
        assertThat(strings(configMap, "metadata", "labels")).containsEntry("grafana_dashboard", "1");
        String json = strings(configMap, "data").get("kvcache-injector.json");
        String file = Files.readString(RenderedChart.chartDir().resolve("files/dashboard.json"));
        assertThat(json).isEqualTo(file.stripTrailing());
        JsonNode dashboard = new ObjectMapper().readTree(json);
        assertThat(dashboard.path("panels")).extracting(p -> p.path("title").asText()).contains("Replicas ready",
                "Certificate days left", "Reviews per second by outcome", "Memory against the limit",
                "Refusals by code", "Admission latency");
        assertThat(dashboard.path("panels")).allSatisfy(p -> assertThat(p.path("targets"))
                .isNotEmpty().allSatisfy(t -> assertThat(t.path("expr").asText()).isNotBlank()));

        Map<String, Object> custom = only(render(values("metrics.dashboard.enabled", true,
                "metrics.dashboard.labels.grafana_dashboard", "null", "metrics.dashboard.labels.dashboards", "kvi",
                "metrics.dashboard.namespace", "monitoring", "metrics.dashboard.annotations.grafana_folder", "Webhooks")),
                "ConfigMap");
        assertThat(strings(custom, "metadata", "labels")).containsEntry("dashboards", "kvi").doesNotContainKey("grafana_dashboard");
        assertThat(map(custom, "metadata")).containsEntry("namespace", "monitoring");
        assertThat(strings(custom, "metadata", "annotations")).containsEntry("grafana_folder", "Webhooks");
    }

    private static List<String> alerts(Map<String, Object> values) {
        return rules(values).stream().map(r -> (String) r.get("alert")).toList();
    }

    private static Map<String, Object> rule(List<Map<String, Object>> rules, String alert) {
        return rules.stream().filter(r -> alert.equals(r.get("alert"))).findFirst().orElseThrow();
    }

    private static String latencyThreshold(Map<String, Object> values) {
        String expr = (String) rule(rules(values), "KvcacheInjectorAdmissionSlow").get("expr");
        Matcher m = LATENCY.matcher(expr.strip());
        assertThat(m.matches()).as(expr).isTrue();
        return m.group(1);
    }

    private static List<Map<String, Object>> rules(Map<String, Object> values) {
        values.put("metrics.prometheusRule.enabled", true);
        Map<String, Object> rule = only(render(values), "PrometheusRule");
        assertThat(rule.get("apiVersion")).isEqualTo("monitoring.coreos.com/v1");
        List<Map<String, Object>> groups = list(map(rule, "spec"), "groups");
        assertThat(groups).hasSize(1);
        return list(groups.getFirst(), "rules");
    }

    private static Map<String, Object> only(RenderedChart chart, String kind) {
        List<Map<String, Object>> all = chart.all(kind);
        assertThat(all).as(kind).hasSize(1);
        return all.getFirst();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> parent, String key) {
        Object v = parent.get(key);
        assertThat(v).as(key).isInstanceOf(Map.class);
        return (Map<String, Object>) v;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Map<String, Object> parent, String key) {
        Object v = parent.get(key);
        assertThat(v).as(key).isInstanceOf(List.class);
        return (List<Map<String, Object>>) v;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> strings(Map<String, Object> parent, String... path) {
        Map<String, Object> m = parent;
        for (String key : path) {
            m = map(m, key);
        }
        return (Map<String, String>) (Map<?, ?>) m;
    }

    private static X509Certificate certificate(String base64Pem) throws Exception {
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(Base64.getDecoder().decode(base64Pem)));
    }
}
