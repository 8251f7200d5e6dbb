package io.kvcacheinjector.app.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The chart's monitoring objects against the Prometheus Operator's own schemas (issue 31): the operator's published
 * CRDs (ServiceMonitor, PodMonitor, PrometheusRule, from its Go module by {@code tools/e2e/prometheus-crds.sh}) are
 * created in a real kube-apiserver on loopback, then {@code helm install} with {@code metrics.serviceMonitor},
 * {@code metrics.prometheusRule} and {@code metrics.dashboard} enabled. The API server validates each object against
 * the operator's structural schema: a wrong type is refused (the install fails), an unknown field is pruned (the
 * stored object then differs from the rendered one, which fails the comparison below).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MonitoringE2E {
    static final String CRDS_PROPERTY = "kvcache.e2e.prometheusCrds";
    private static final String RELEASE = "kvi";
    private static final String NAMESPACE = "kvcache-system";
    private static final Map<String, String> VALUES = valuesEnabled();

    private static Path workDir;
    private static ControlPlane controlPlane;
    private static KubernetesClient admin;
    private static ChartMonitoring rendered;
    private static Release release;

    static Map<String, String> valuesEnabled() {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("settings.namespace", NAMESPACE);
        v.put("metrics.serviceMonitor.enabled", "true");
        v.put("metrics.prometheusRule.enabled", "true");
        v.put("metrics.dashboard.enabled", "true");
        return v;
    }

    /**
     * The folder of the operator's CRD files from {@code -Dkvcache.e2e.prometheusCrds} (.ci/e2e passes it), or an
     * AssertionError saying which command provides it.
     */
    static Path crdFolder() {
        String given = System.getProperty(CRDS_PROPERTY, "");
        String how = "run tools/e2e/prometheus-crds.sh (downloads github.com/prometheus-operator/prometheus-operator"
                + " through the Go module proxy, cached) and pass its last line as -D" + CRDS_PROPERTY + "=<dir>;"
                + " .ci/e2e does both";
        if (given.isBlank()) {
            throw new AssertionError("the Prometheus Operator's CRDs are not given: " + how);
        }
        Path dir = Path.of(given);
        for (String kind : List.of("servicemonitors", "podmonitors", "prometheusrules")) {
            if (!Files.isRegularFile(dir.resolve("monitoring.coreos.com_" + kind + ".yaml"))) {
                throw new AssertionError(dir + " holds no monitoring.coreos.com_" + kind + ".yaml: " + how);
            }
        }
        return dir;
    }

    /** Creates the operator's CRDs of {@code dir} and waits until the API server serves them. */
    static List<String> createCrds(KubernetesClient admin, Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".yaml")).sorted().toList()) {
                CustomResourceDefinition crd = Serialization.unmarshal(Files.readString(f),
                        CustomResourceDefinition.class);
                admin.apiextensions().v1().customResourceDefinitions().resource(crd).create();
                names.add(crd.getMetadata().getName());
            }
        }
        for (String name : names) {
            admin.apiextensions().v1().customResourceDefinitions().withName(name)
                    .waitUntilCondition(E2eSupport::established, 60, TimeUnit.SECONDS);
        }
        return names;
    }

    @BeforeAll
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    static void installTheOperatorsCrdsThenTheChartWithItsMonitoringObjects() throws IOException {
        Path repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        Path crds = crdFolder();
        ControlPlaneBinaries.Found found = ControlPlaneBinaries.locate(repo, System.getenv());
        if (found instanceof ControlPlaneBinaries.Unavailable unavailable) {
            System.out.println("e2e: SKIPPED: " + unavailable.reason());
            Assumptions.abort(unavailable.reason());
        }
        workDir = Files.createTempDirectory("kvcache-e2e-monitoring");
        controlPlane = ControlPlane.start(((ControlPlaneBinaries.Available) found).dir(), workDir);
        admin = controlPlane.adminClient();
        long t = System.nanoTime();
        List<String> names = createCrds(admin, crds);
        System.out.println("e2e: monitoring: created and established " + names + " from " + crds + " in "
                + E2eSupport.since(t).toMillis() + " ms (" + ChartMonitoring.readString(crds.resolve("SOURCE")).strip()
                + ")");
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata()
                .build()).create();

        Path chart = E2eSupport.chartDir(repo);
        t = System.nanoTime();
        var install = new Helm(chart).install().withName(RELEASE).withNamespace(NAMESPACE)
                .withKubeConfigContents(controlPlane.kubeconfig(ControlPlane.ADMIN_TOKEN, "e2e-admin"));
        VALUES.forEach(install::set);
        release = install.call();
        System.out.println("e2e: monitoring: helm install with " + VALUES.keySet() + " took "
                + E2eSupport.since(t).toMillis() + " ms");
        // what Helm sent, from the release itself (the real helm of the assets: helm-java has no `get manifest`)
        Path kubeconfig = workDir.resolve("admin.kubeconfig");
        Files.writeString(kubeconfig, controlPlane.kubeconfig(ControlPlane.ADMIN_TOKEN, "e2e-admin"));
        rendered = ChartMonitoring.parse(helmGetManifest(((ControlPlaneBinaries.Available) found).dir()
                .resolve("helm"), kubeconfig));
    }

    private static String helmGetManifest(Path helm, Path kubeconfig) throws IOException {
        Path out = workDir.resolve("manifest.yaml");
        Process p = new ProcessBuilder(helm.toString(), "get", "manifest", RELEASE, "-n", NAMESPACE, "--kubeconfig",
                kubeconfig.toString()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new AssertionError("helm get manifest failed: " + Files.readString(out));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return Files.readString(out);
    }

    @AfterAll
    static void stopEverything() {
        if (admin != null) {
            admin.close();
        }
        if (controlPlane != null) {
            controlPlane.close();
        }
        if (workDir != null && !Boolean.getBoolean("kvcache.e2e.keep")) {
            E2eSupport.deleteRecursively(workDir);
        }
    }

    @Test
    @Order(1)
    void theChartRendersAServiceMonitorAPrometheusRuleAndADashboard() {
        assertThat(release.getStatus()).as("helm install status").isEqualTo("deployed");
        assertThat(rendered.ofKind("ServiceMonitor").size() + rendered.ofKind("PodMonitor").size())
                .as("ServiceMonitors and PodMonitors rendered with metrics.serviceMonitor.enabled").isPositive();
        assertThat(rendered.ofKind("PrometheusRule")).as("PrometheusRules rendered").isNotEmpty();
        assertThat(rendered.alerts()).as("alerting rules in the PrometheusRule").isNotEmpty();
        assertThat(rendered.dashboards()).as("dashboard ConfigMaps rendered").isNotEmpty();
        assertThat(rendered.panelQueries()).as("panel expressions of the dashboard").isNotEmpty();
    }

    /**
     * What the API server stored is what Helm rendered, spec for spec: the operator's schema pruned nothing (a field
     * the schema does not know would be dropped silently by a structural CRD, and the Prometheus Operator would then
     * never see it).
     */
    @Test
    @Order(2)
    void everyOperatorObjectIsStoredAsRendered() {
        List<ObjectNode> objects = rendered.operatorObjects();
        assertThat(objects).as("operator objects").isNotEmpty();
        for (ObjectNode o : objects) {
            String apiVersion = o.path("apiVersion").asText();
            String kind = o.path("kind").asText();
            String name = o.path("metadata").path("name").asText();
            String ns = o.path("metadata").path("namespace").asText(NAMESPACE);
            GenericKubernetesResource stored = admin.genericKubernetesResources(apiVersion, kind).inNamespace(ns)
                    .withName(name).get();
            assertThat(stored).as(kind + " " + ns + "/" + name + " stored").isNotNull();
            JsonNode storedSpec = ChartMonitoring.JSON.valueToTree(stored.getAdditionalProperties().get("spec"));
            assertThat(storedSpec).as(kind + " " + name + ": the stored spec (after the operator's schema) equals the"
                    + " rendered one").isEqualTo(o.path("spec"));
            assertThat(stored.getMetadata().getLabels()).as(kind + " " + name + " labels")
                    .containsAllEntriesOf(ChartMonitoring.JSON.convertValue(o.path("metadata").path("labels"),
                            ChartMonitoring.JSON.getTypeFactory().constructMapType(Map.class, String.class,
                                    String.class)));
            System.out.println("e2e: monitoring: " + kind + " " + ns + "/" + name + " stored as rendered");
        }
    }

    @Test
    @Order(3)
    void theDashboardConfigMapIsStoredAsRendered() {
        for (ObjectNode c : rendered.dashboards()) {
            String name = c.path("metadata").path("name").asText();
            String ns = c.path("metadata").path("namespace").asText(NAMESPACE);
            var stored = admin.configMaps().inNamespace(ns).withName(name).get();
            assertThat(stored).as("dashboard ConfigMap " + ns + "/" + name).isNotNull();
            assertThat(ChartMonitoring.JSON.<JsonNode>valueToTree(stored.getData())).as("its data")
                    .isEqualTo(c.path("data"));
        }
        System.out.println("e2e: monitoring: dashboard panels' expressions: " + rendered.panelQueries().size()
                + ", alerts: " + rendered.alerts().stream().map(ChartMonitoring.Alert::name).toList());
    }

    /** The schema is enforced: a ServiceMonitor whose endpoint port is a number (the schema says string) is refused. */
    @Test
    @Order(4)
    void aServiceMonitorWithAWrongFieldTypeIsRefused() {
        GenericKubernetesResource broken = Serialization.unmarshal("""
                apiVersion: monitoring.coreos.com/v1
                kind: ServiceMonitor
                metadata: {name: broken, namespace: %s}
                spec:
                  selector: {matchLabels: {app: x}}
                  endpoints:
                    - port: 8443
                      scheme: https
                """.formatted(NAMESPACE), GenericKubernetesResource.class);
        assertThatThrownBy(() -> admin.resource(broken).create()).isInstanceOfSatisfying(
                KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).as("HTTP status").isEqualTo(422);
                    assertThat(e.getMessage()).contains("spec.endpoints[0].port").contains("string");
                });
        assertThat(admin.genericKubernetesResources("monitoring.coreos.com/v1", "ServiceMonitor")
                .inNamespace(NAMESPACE).withName("broken").get()).as("nothing stored").isNull();
    }

    /** ... and so is a PrometheusRule whose rule lacks {@code expr} (required by the schema). */
    @Test
    @Order(5)
    void aPrometheusRuleWithoutExprIsRefused() {
        GenericKubernetesResource broken = Serialization.unmarshal("""
                apiVersion: monitoring.coreos.com/v1
                kind: PrometheusRule
                metadata: {name: broken, namespace: %s}
                spec:
                  groups:
                    - name: g
                      rules:
                        - alert: NoExpr
                """.formatted(NAMESPACE), GenericKubernetesResource.class);
        assertThatThrownBy(() -> admin.resource(broken).create()).isInstanceOfSatisfying(
                KubernetesClientException.class, e -> {
                    assertThat(e.getCode()).as("HTTP status").isEqualTo(422);
                    assertThat(e.getMessage()).contains("expr");
                });
    }
}
