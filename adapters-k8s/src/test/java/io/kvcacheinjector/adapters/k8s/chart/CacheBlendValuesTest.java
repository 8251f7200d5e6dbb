package io.kvcacheinjector.adapters.k8s.chart;

import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.render;
import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code cacheBlend.contract.enabled}: true by default (the CacheBlend webhook, its RBAC, no flag); false for a cluster that
 * has only the gpustack CRDs, where the webhook serves kvcache only with the least privilege that needs.
 */
class CacheBlendValuesTest {

    @Test
    void byDefaultTheCacheBlendContractIsServed() {
        RenderedChart chart = render();
        assertThat(mutatingPaths(chart)).containsExactly("/kvcache/mutate", "/cacheblend/mutate");
        assertThat(webhook(chart).getArgs()).doesNotContain("--disable-cacheblend");
        assertThat(resources(chart.one(ClusterRole.class, "ClusterRole").getRules()))
                .contains("lmcache.lmcache.ai/cacheblendengines", "/configmaps");
    }

    @Test
    void disabledTheCacheBlendWebhookIsNotRegisteredAndTheKvCacheOnesAreUnchanged() {
        RenderedChart enabled = render();
        RenderedChart disabled = render(values("cacheBlend.contract.enabled", false));

        assertThat(mutatingPaths(disabled)).containsExactly("/kvcache/mutate");
        assertThat(disabled.yaml()).doesNotContain("/cacheblend/mutate").doesNotContain("lmcache.ai/cacheblend-inject");
        MutatingWebhook kvcache = webhooks(disabled).get(0);
        // each render generates its own CA, so the bundles differ; everything else is the same
        assertThat(kvcache).usingRecursiveComparison().ignoringFields("clientConfig.caBundle")
                .isEqualTo(webhooks(enabled).get(0));
        assertThat(kvcache.getFailurePolicy()).isEqualTo("Fail");
        assertThat(disabled.one(ValidatingWebhookConfiguration.class, "ValidatingWebhookConfiguration").getWebhooks())
                .usingRecursiveFieldByFieldElementComparatorIgnoringFields("clientConfig.caBundle")
                .isEqualTo(enabled.one(ValidatingWebhookConfiguration.class, "ValidatingWebhookConfiguration")
                        .getWebhooks());
    }

    @Test
    void disabledTheServerRunsWithDisableCacheblendAndNoOtherCacheBlendFlag() {
        Container webhook = webhook(render(values("cacheBlend.contract.enabled", false,
                "cacheBlend.contract.allowedNamespaces[0]", "lmcache")));
        assertThat(webhook.getArgs()).containsExactly("serve", "--port", "8443", "--health-port", "8081",
                "--tls-cert", "/tls/tls.crt",
                "--tls-key", "/tls/tls.key", "--settings-namespace", "gpustack-system", "--namespace",
                RenderedChart.NAMESPACE, "--disable-cacheblend", "--shutdown-delay", "5s", "--shutdown-grace", "10s",
                "--warm-up-reviews", "5000");
    }

    @Test
    void disabledRbacGrantsNeitherCacheBlendEnginesNorConfigMaps() {
        RenderedChart chart = render(values("cacheBlend.contract.enabled", false));
        ClusterRole role = chart.one(ClusterRole.class, "ClusterRole");
        assertThat(resources(role.getRules())).containsExactlyInAnyOrder(
                "worker.gpustack.ai/kvcachepoolbindings", "worker.gpustack.ai/kvcachepools",
                "worker.gpustack.ai/kvcachebackends");
        assertThat(role.getRules()).allSatisfy(r ->
                assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch"));
        // the settings Secret is still readable, by name, in its namespace
        assertThat(chart.one(Role.class, "Role").getRules()).singleElement().satisfies(r -> {
            assertThat(r.getResources()).containsExactly("secrets");
            assertThat(r.getResourceNames()).containsExactly("gpustack-settings");
        });
        assertThat(chart.kinds()).contains("ClusterRoleBinding", "RoleBinding");
    }

    @Test
    void failClosedWithoutTheContractIsRefusedAtRenderTimeNamingBothValues() {
        assertThatThrownBy(() -> render(values("cacheBlend.contract.enabled", false, "cacheBlend.contract.failClosed", true)))
                .hasMessageContaining("cacheBlend.contract.failClosed needs cacheBlend.contract.enabled");
    }

    @Test
    void enabledMustBeABoolean() {
        assertThatThrownBy(() -> render(values("cacheBlend.contract.enabled", "no")))
                .hasMessageContaining("enabled");
    }

    @Test
    void theInstallNotesSayWhatEachSettingNeeds() {
        assertThat(notes(false)).contains("CacheBlend is enabled")
                .contains("If the CRD cacheblendengines.lmcache.lmcache.ai\nis not installed")
                .contains("/readyz names the CRD").contains("--set cacheBlend.contract.enabled=false");
        assertThat(notes(true)).contains("CacheBlend is disabled (cacheBlend.contract.enabled=false)")
                .contains("Pods labelled lmcache.ai/cacheblend-inject are seen by no webhook")
                .doesNotContain("cacheblendengines.lmcache.lmcache.ai");
    }

    private static String notes(boolean disabled) {
        RenderedChart.apiServer(); // the chart looks up its TLS Secret, also in a dry run
        var install = new Helm(RenderedChart.chartDir()).install().withName(RenderedChart.RELEASE)
                .withNamespace(RenderedChart.NAMESPACE).withKubeVersion(RenderedChart.KUBE_VERSION).clientOnly().dryRun();
        if (disabled) {
            install.set("cacheBlend.contract.enabled", false);
        }
        return install.call().getOutput();
    }

    private static Container webhook(RenderedChart chart) {
        return chart.one(Deployment.class, "Deployment").getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    private static List<MutatingWebhook> webhooks(RenderedChart chart) {
        return chart.one(MutatingWebhookConfiguration.class, "MutatingWebhookConfiguration").getWebhooks();
    }

    private static List<String> mutatingPaths(RenderedChart chart) {
        return webhooks(chart).stream().map(w -> w.getClientConfig().getService().getPath()).toList();
    }

    private static List<String> resources(List<PolicyRule> rules) {
        return rules.stream().flatMap(r -> r.getApiGroups().stream()
                .flatMap(g -> r.getResources().stream().map(res -> g + "/" + res))).toList();
    }
}
