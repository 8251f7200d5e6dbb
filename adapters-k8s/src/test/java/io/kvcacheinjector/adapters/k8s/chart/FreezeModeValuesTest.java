package io.kvcacheinjector.adapters.k8s.chart;

import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.NAMESPACE;
import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.render;
import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Validation;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code freeze.mode}: where the freeze runs. {@code helm template} sees no cluster kinds, so {@code auto} renders the
 * webhook here; {@code auto} on a cluster that serves the policy kind is the e2e suite's {@code FreezePolicyE2E}.
 */
class FreezeModeValuesTest {
    private static final String POLICY = "kvi-kvcache-injector-freeze";
    private static final List<String> WITHOUT_THE_FREEZE_WEBHOOK = List.of("ClusterRole", "ClusterRoleBinding",
            "Deployment", "MutatingWebhookConfiguration", "PodDisruptionBudget",
            // the settings Role and the CacheBlendEngine controller's leader-election Role, each with its binding
            "Role", "Role", "RoleBinding", "RoleBinding", "Secret",
            "Service", "ServiceAccount");

    @Test
    void autoWithoutThePolicyKindInTheClustersApiVersionsRegistersTheFreezeWebhook() {
        RenderedChart chart = render();
        assertThat(chart.kinds()).contains("ValidatingWebhookConfiguration")
                .doesNotContain("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");
        assertThat(freezeWebhook(chart).getName()).isEqualTo("freeze.kvcache.kvcache-injector.io");
    }

    @Test
    void webhookModeRegistersTheFreezeWebhookOnValidateAndNoPolicy() {
        RenderedChart chart = render(values("freeze.mode", "webhook"));
        assertThat(chart.kinds()).doesNotContain("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding");
        ValidatingWebhook freeze = freezeWebhook(chart);
        assertThat(freeze.getClientConfig().getService().getPath()).isEqualTo("/kvcache/validate");
        assertThat(freeze.getFailurePolicy()).isEqualTo("Ignore");
    }

    @Test
    void policyModeRendersThePolicyAndItsBindingInsteadOfTheFreezeWebhookAndKeepsBothMutatingWebhooks() {
        RenderedChart chart = render(values("freeze.mode", "policy"));

        assertThat(chart.kinds()).containsExactlyInAnyOrderElementsOf(concat(WITHOUT_THE_FREEZE_WEBHOOK,
                List.of("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")));
        assertThat(chart.one(MutatingWebhookConfiguration.class, "MutatingWebhookConfiguration").getWebhooks())
                .extracting(w -> w.getName())
                .containsExactly("inject.kvcache.kvcache-injector.io", "inject.cacheblend.kvcache-injector.io");
        assertThat(webhookArgs(chart)).as("serve still answers /kvcache/validate; nothing tells it otherwise")
                .isEqualTo(webhookArgs(render(values("freeze.mode", "webhook"))));
    }

    @Test
    void thePolicyJudgesOnlyPodUpdatesOfOptedInPodsFailsOpenAndReportsEveryCodeInOneDenialAndTheAuditLog() {
        ValidatingAdmissionPolicy policy = render(values("freeze.mode", "policy"))
                .one(ValidatingAdmissionPolicy.class, "ValidatingAdmissionPolicy");
        var spec = policy.getSpec();

        assertThat(policy.getMetadata().getName()).isEqualTo(POLICY);
        assertThat(spec.getFailurePolicy()).as("as the webhook: never between a Pod and its termination")
                .isEqualTo("Ignore");
        assertThat(spec.getParamKind()).isNull();
        assertThat(spec.getMatchConstraints().getResourceRules()).singleElement().satisfies(r -> {
            assertThat(r.getOperations()).containsExactly("UPDATE");
            assertThat(r.getResources()).containsExactly("pods");
            assertThat(r.getApiGroups()).containsExactly("");
            assertThat(r.getApiVersions()).containsExactly("v1");
        });
        assertThat(spec.getMatchConditions()).singleElement().satisfies(c -> {
            assertThat(c.getName()).isEqualTo("opted-in");
            assertThat(c.getExpression()).contains("oldObject.metadata.?labels[?'kvcache.gpustack.ai/inject']")
                    .contains("object.metadata.?labels[?'kvcache.gpustack.ai/inject']").contains("== 'true'");
        });
        assertThat(spec.getValidations()).as("one validation: the API server shows only the first failed one")
                .singleElement().satisfies(v -> {
                    assertThat(v.getReason()).isEqualTo("Forbidden");
                    assertThat(v.getMessageExpression()).isEqualTo("variables.sentences.join(' ')");
                });
        String sentences = spec.getVariables().stream().filter(v -> v.getName().endsWith("Sentence"))
                .map(v -> v.getExpression()).reduce("", String::concat);
        assertThat(sentences).contains("\"frozen-label: label kvcache.gpustack.ai/inject on Pod ",
                "\"frozen-record: annotation kvcache.gpustack.ai/injected on Pod ",
                "\"frozen-client-config: annotation kvcache.gpustack.ai/client-config on Pod ",
                "let the Pod be replaced.");
        assertThat(spec.getAuditAnnotations()).singleElement().satisfies(a -> {
            assertThat(a.getKey()).isEqualTo("refusal");
            assertThat(a.getValueExpression()).isEqualTo("variables.codes.join(',')");
        });
        assertThat(spec.getValidations()).extracting(Validation::getExpression)
                .containsExactly("size(variables.codes) == 0");
    }

    @Test
    void theBindingDeniesAndSelectsAsTheFreezeWebhookDid() {
        RenderedChart policyChart = render(values("freeze.mode", "policy", "webhook.excludedNamespaces[0]", "ops"));
        ValidatingAdmissionPolicyBinding binding = policyChart.one(ValidatingAdmissionPolicyBinding.class,
                "ValidatingAdmissionPolicyBinding");
        ValidatingWebhook webhook = freezeWebhook(render(values("freeze.mode", "webhook",
                "webhook.excludedNamespaces[0]", "ops")));

        assertThat(binding.getMetadata().getName()).isEqualTo(POLICY);
        assertThat(binding.getSpec().getPolicyName()).isEqualTo(POLICY);
        assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny");
        assertThat(binding.getSpec().getParamRef()).isNull();
        var match = binding.getSpec().getMatchResources();
        assertThat(match.getObjectSelector()).isEqualTo(webhook.getObjectSelector());
        assertThat(match.getObjectSelector().getMatchExpressions()).containsExactly(
                new LabelSelectorRequirement("kvcache.gpustack.ai/inject", "In", List.of("true")));
        assertThat(match.getNamespaceSelector()).isEqualTo(webhook.getNamespaceSelector());
        assertThat(match.getNamespaceSelector().getMatchExpressions()).containsExactly(new LabelSelectorRequirement(
                "kubernetes.io/metadata.name", "NotIn", List.of(NAMESPACE, "kube-system", "ops")));
    }

    @Test
    void withCertManagerAndThePolicyOnlyTheMutatingConfigurationWaitsForTheCa() {
        RenderedChart chart = render(values("freeze.mode", "policy", "tls.certManager.enabled", true));
        assertThat(chart.kinds()).contains("Certificate", "ValidatingAdmissionPolicy")
                .doesNotContain("ValidatingWebhookConfiguration");
        assertThat(chart.one(MutatingWebhookConfiguration.class, "MutatingWebhookConfiguration").getMetadata()
                .getAnnotations()).containsKey("cert-manager.io/inject-ca-from");
    }

    @Test
    void aModeTheChartDoesNotKnowIsRefusedAtRenderTimeNamingTheValue() {
        assertThatThrownBy(() -> render(values("freeze.mode", "both")))
                .hasMessageContaining("/freeze/mode").hasMessageContaining("'auto', 'policy', 'webhook'");
    }

    private static ValidatingWebhook freezeWebhook(RenderedChart chart) {
        return chart.one(ValidatingWebhookConfiguration.class, "ValidatingWebhookConfiguration").getWebhooks()
                .stream().filter(w -> w.getName().equals("freeze.kvcache.kvcache-injector.io")).findFirst()
                .orElseThrow(() -> new AssertionError("no freeze webhook in:\n" + chart.yaml()));
    }

    private static List<String> webhookArgs(RenderedChart chart) {
        return chart.one(Deployment.class, "Deployment").getSpec().getTemplate()
                .getSpec().getContainers().getFirst().getArgs();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return Stream.concat(a.stream(), b.stream()).toList();
    }
}
