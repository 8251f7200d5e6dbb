package io.kvcacheinjector.adapters.k8s.chart;

import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.render;
import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.kvcacheinjector.domain.cacheblend.engine.EngineRendering;
import io.kvcacheinjector.domain.cacheblend.engine.RenderContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CacheBlend install values (cacheBlend.enabled/name/namespace/spec, webhook.enabled, the controller): the
 * seed's my-values.yaml renders the engine the guide describes, allowed cross-namespace, reconciled by a controller
 * with write access to exactly what it creates; a misspelled value fails lint and install with the key named.
 */
class CacheBlendInstallValuesTest {
    private static final Path MY_VALUES = RenderedChart.repoRoot().resolve("docs/examples/cacheblend/my-values.yaml");

    private static RenderedChart renderMyValues(Map<String, Object> more) {
        RenderedChart.apiServer();
        var template = new Helm(RenderedChart.chartDir()).template().withName(RenderedChart.RELEASE)
                .withNamespace(RenderedChart.NAMESPACE).withKubeVersion(RenderedChart.KUBE_VERSION)
                .withValuesFile(MY_VALUES);
        more.forEach(template::set);
        return RenderedChart.parse(template.call());
    }

    @Test
    @SuppressWarnings("unchecked")
    void theSeedsValuesCreateTheEngineInTheReleaseNamespaceAsTheGuideWritesIt() {
        RenderedChart chart = renderMyValues(Map.of());
        Map<String, Object> engine = chart.all("CacheBlendEngine").getFirst();
        assertThat(chart.all("CacheBlendEngine")).hasSize(1);
        assertThat(engine).containsEntry("apiVersion", "lmcache.lmcache.ai/v1alpha1");
        assertThat((Map<String, Object>) engine.get("metadata")).containsEntry("name", "tensormesh-cacheblend")
                .containsEntry("namespace", RenderedChart.NAMESPACE);
        Map<String, Object> spec = (Map<String, Object>) engine.get("spec");
        assertThat(spec.get("l1")).isEqualTo(Map.of("sizeGB", 200));
        assertThat(spec.get("injection").toString()).contains("repository=tensormesh/cacheblend-plugin", "tag=v0.5.3",
                "imagePullSecrets=[{name=cacheblend-plugin-pull}]");
        // the engine the chart creates is valid, so the controller renders its children
        assertThat(EngineRendering.render(engine, "x", RenderContext.offline()))
                .isInstanceOf(EngineRendering.Rendered.class);

        Container webhook = webhook(chart);
        assertThat(webhook.getArgs()).containsSubsequence("--cacheblend-allowed-namespaces", RenderedChart.NAMESPACE)
                .contains("--reconcile-cacheblend");
        assertThat(mutatingPaths(chart)).containsExactly("/kvcache/mutate", "/cacheblend/mutate");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theDefaultNameIsFullnameCacheblendAndAnotherNamespaceIsAllowedBesideTheListedOnes() {
        RenderedChart chart = render(values("cacheBlend.enabled", true,
                "cacheBlend.spec.injection.payloadImage.repository", "tensormesh/cacheblend-plugin",
                "cacheBlend.namespace", "lmcache", "cacheBlend.contract.allowedNamespaces[0]", "shared"));
        Map<String, Object> engine = chart.all("CacheBlendEngine").getFirst();
        assertThat((Map<String, Object>) engine.get("metadata")).containsEntry("name", "kvi-kvcache-injector-cacheblend")
                .containsEntry("namespace", "lmcache");
        assertThat(((Map<String, Object>) engine.get("spec")).get("l1")).isEqualTo(Map.of("sizeGB", 60));
        assertThat(webhook(chart).getArgs()).containsSubsequence("--cacheblend-allowed-namespaces", "shared,lmcache");
        assertThat(render().all("CacheBlendEngine")).isEmpty();
    }

    @Test
    void anEngineWithoutItsPayloadImageOrWithoutTheContractFailsNamingTheValueAndTheRename() {
        assertThatThrownBy(() -> render(values("cacheBlend.enabled", true)))
                .hasMessageContaining("cacheBlend.spec.injection.payloadImage.repository")
                .hasMessageContaining("that is cacheBlend.contract.enabled");
        assertThatThrownBy(() -> render(values("cacheBlend.enabled", true, "cacheBlend.contract.enabled", false,
                "cacheBlend.spec.injection.payloadImage.repository", "p")))
                .hasMessageContaining("set cacheBlend.contract.enabled=true");
    }

    @Test
    void webhookEnabledFalseRegistersNoCacheBlendWebhookAndKeepsTheKvCacheOnes() {
        RenderedChart chart = renderMyValues(Map.of("webhook.enabled", false));
        assertThat(mutatingPaths(chart)).containsExactly("/kvcache/mutate");
        assertThat(chart.all("CacheBlendEngine")).hasSize(1);
        assertThat(webhook(chart).getArgs()).contains("--reconcile-cacheblend");
    }

    @Test
    void theControllerMayWriteOnlyWhatItCreatesTheEngineStatusAndLeasesInTheReleaseNamespace() {
        RenderedChart chart = render();
        List<PolicyRule> rules = chart.one(ClusterRole.class, "ClusterRole").getRules();
        List<String> writable = rules.stream().filter(r -> r.getVerbs().contains("patch"))
                .flatMap(r -> r.getApiGroups().stream().flatMap(g -> r.getResources().stream().map(x -> g + "/" + x)))
                .toList();
        assertThat(writable).containsExactlyInAnyOrder("/configmaps", "lmcache.lmcache.ai/cacheblendengines/status",
                "apps/daemonsets", "/services", "/secrets", "monitoring.coreos.com/servicemonitors");
        assertThat(rules).allSatisfy(r -> assertThat(r.getVerbs()).doesNotContain("delete", "deletecollection", "*"));
        assertThat(rules).filteredOn(r -> r.getResources().contains("cacheblendengines"))
                .allSatisfy(r -> assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch"));
        assertThat(rules).filteredOn(r -> r.getResources().contains("secrets"))
                .allSatisfy(r -> assertThat(r.getVerbs()).doesNotContain("list", "watch"));
        Role lease = chart.one(Role.class, "Role", "kvi-kvcache-injector-leader-election");
        assertThat(lease.getMetadata().getNamespace()).isEqualTo(RenderedChart.NAMESPACE);
        assertThat(lease.getRules()).singleElement().satisfies(r -> {
            assertThat(r.getApiGroups()).containsExactly("coordination.k8s.io");
            assertThat(r.getResources()).containsExactly("leases");
        });
    }

    @Test
    void aMisspelledOrFormerValueFailsStrictLintAndInstallNamingTheKey(@TempDir Path dir) throws IOException {
        Path chart = dir.resolve("kvcache-injector");
        copy(RenderedChart.chartDir(), chart);
        Files.writeString(chart.resolve("values.yaml"), Files.readString(chart.resolve("values.yaml"))
                .replace("      sizeGB: 60", "      sizeGb: 60"));
        LintResult lint = new Helm(chart).lint().strict().call();
        assertThat(lint.isFailed()).isTrue();
        assertThat(String.join("\n", lint.getMessages())).contains("sizeGb");

        assertThatThrownBy(() -> render(values("cacheBlend.failClosed", true)))
                .hasMessageContaining("failClosed");
        assertThatThrownBy(() -> render(values("webhook.enabeld", true))).hasMessageContaining("enabeld");
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
    }

    private static Container webhook(RenderedChart chart) {
        return chart.one(Deployment.class, "Deployment").getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    private static List<String> mutatingPaths(RenderedChart chart) {
        return chart.one(MutatingWebhookConfiguration.class, "MutatingWebhookConfiguration").getWebhooks().stream()
                .map(MutatingWebhook::getClientConfig).map(c -> c.getService().getPath()).toList();
    }
}
