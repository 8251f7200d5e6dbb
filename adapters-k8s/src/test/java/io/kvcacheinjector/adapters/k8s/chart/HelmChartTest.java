package io.kvcacheinjector.adapters.k8s.chart;

import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.NAMESPACE;
import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.render;
import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The chart rendered by a real Helm, for default and non-default values, and linted. */
class HelmChartTest {
    private static final String FULLNAME = "kvi-kvcache-injector";

    @Test
    void rendersExactlyTheObjectsTheWebhookNeeds() {
        // two Roles: the settings Secret, and the CacheBlendEngine controller's Lease (cacheBlend.controller.enabled)
        assertThat(render().kinds()).containsExactly("ClusterRole", "ClusterRoleBinding", "Deployment",
                "MutatingWebhookConfiguration", "PodDisruptionBudget", "Role", "Role", "RoleBinding", "RoleBinding",
                "Secret", "Service", "ServiceAccount", "ValidatingWebhookConfiguration");
        assertThat(render(values("cacheBlend.controller.enabled", false)).kinds()).containsOnlyOnce("Role");
    }

    @Test
    void theDeploymentRunsTwoSpreadNonRootReplicasWithALockedDownContainer() {
        Deployment deployment = render().one(Deployment.class, "Deployment");
        var pod = deployment.getSpec().getTemplate().getSpec();
        assertThat(deployment.getSpec().getReplicas()).isEqualTo(2);
        var anti = pod.getAffinity().getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution();
        assertThat(anti).singleElement().satisfies(term -> {
            assertThat(term.getPodAffinityTerm().getTopologyKey()).isEqualTo("kubernetes.io/hostname");
            assertThat(term.getPodAffinityTerm().getLabelSelector().getMatchLabels())
                    .isEqualTo(deployment.getSpec().getSelector().getMatchLabels());
        });
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsUser()).isNotZero();
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");

        Container webhook = pod.getContainers().get(0);
        assertThat(webhook.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(webhook.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(webhook.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(webhook.getResources().getRequests()).containsKeys("cpu", "memory");
        assertThat(webhook.getResources().getLimits()).containsKeys("cpu", "memory");
        assertThat(webhook.getVolumeMounts()).anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/tmp"));
        assertThat(deployment.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(deployment.getSpec().getSelector().getMatchLabels());
    }

    @Test
    void theServerRunsTheJarWithAHeapLimitAndTheServeFlags() {
        Container webhook = webhook(render());
        assertThat(webhook.getImage()).isEqualTo("kvcache-injector:0.1.0");
        assertThat(webhook.getCommand()).startsWith("java").contains("-XX:MaxRAMPercentage=41")
                .endsWith("-jar", "/app/kvcache-injector.jar");
        assertThat(webhook.getArgs()).containsExactly("serve", "--port", "8443", "--health-port", "8081",
                "--tls-cert", "/tls/tls.crt",
                "--tls-key", "/tls/tls.key", "--settings-namespace", "gpustack-system", "--namespace", NAMESPACE,
                "--reconcile-cacheblend", "--shutdown-delay", "5s", "--shutdown-grace", "10s",
                "--warm-up-reviews", "5000");
        assertThat(webhook.getEnv()).hasSize(2);
        // measured: at most two malloc arenas (docs/explanation/performance.md)
        assertThat(webhook.getEnv().getFirst().getName()).isEqualTo("MALLOC_ARENA_MAX");
        assertThat(webhook.getEnv().getFirst().getValue()).isEqualTo("2");
        assertThat(webhook.getEnv().get(1)).satisfies(e -> {
            assertThat(e.getName()).isEqualTo("POD_NAME");
            assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.name");
        });
        assertThat(webhook.getPorts()).extracting(p -> p.getName() + "=" + p.getContainerPort())
                .containsExactly("https=8443", "health=8081");
    }

    @Test
    void readinessIsReadyzAndLivenessIsHealthzOverPlainHttpOnTheHealthPortNotTheWebhookPort() {
        // a probe over HTTPS is a full TLS handshake every time (docs/explanation/decisions.md, issue 32)
        Container webhook = webhook(render());
        assertThat(webhook.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(webhook.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(webhook.getStartupProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        for (var probe : List.of(webhook.getReadinessProbe(), webhook.getLivenessProbe(), webhook.getStartupProbe())) {
            assertThat(probe.getHttpGet().getScheme()).isEqualTo("HTTP");
            assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("health");
        }
        assertThat(webhook.getArgs()).containsSequence("--health-port", "8081");
    }

    @Test
    void theServiceAndTheDisruptionBudgetSelectTheWebhookPods() {
        RenderedChart chart = render();
        Map<String, String> podLabels = chart.one(Deployment.class, "Deployment").getSpec().getTemplate()
                .getMetadata().getLabels();
        Service service = chart.one(Service.class, "Service");
        assertThat(podLabels).containsAllEntriesOf(service.getSpec().getSelector());
        assertThat(service.getSpec().getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getPort()).isEqualTo(443);
            assertThat(p.getTargetPort().getStrVal()).isEqualTo("https");
        });
        PodDisruptionBudget pdb = chart.one(PodDisruptionBudget.class, "PodDisruptionBudget");
        assertThat(pdb.getSpec().getMinAvailable().getIntVal()).isEqualTo(1);
        assertThat(podLabels).containsAllEntriesOf(pdb.getSpec().getSelector().getMatchLabels());
    }

    @Test
    void withoutTheControllerRbacGrantsOnlyGetListWatchOnWhatTheViewReads() {
        RenderedChart chart = render(values("cacheBlend.controller.enabled", false));
        assertThat(webhook(chart).getArgs()).doesNotContain("--reconcile-cacheblend");
        ClusterRole role = chart.one(ClusterRole.class, "ClusterRole");
        assertThat(role.getRules()).allSatisfy(r -> {
            assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch");
            assertThat(r.getResourceNames()).isNullOrEmpty();
        });
        assertThat(resources(role.getRules())).containsExactlyInAnyOrder(
                "worker.gpustack.ai/kvcachepoolbindings", "worker.gpustack.ai/kvcachepools",
                "worker.gpustack.ai/kvcachebackends", "lmcache.lmcache.ai/cacheblendengines", "/configmaps",
                "/namespaces");
        // every kind the informers watch, except the Secret, is in the ClusterRole
        Stream.of(ClusterKind.values()).filter(k -> k != ClusterKind.SECRET).forEach(k ->
                assertThat(resources(role.getRules())).contains(k.group() + "/" + k.plural()));

        Role settings = chart.one(Role.class, "Role");
        assertThat(settings.getMetadata().getNamespace()).isEqualTo("gpustack-system");
        assertThat(settings.getRules()).singleElement().satisfies(r -> {
            assertThat(r.getResources()).containsExactly("secrets");
            assertThat(r.getResourceNames()).containsExactly("gpustack-settings");
            assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch");
        });

        ClusterRoleBinding crb = chart.one(ClusterRoleBinding.class, "ClusterRoleBinding");
        RoleBinding rb = chart.one(RoleBinding.class, "RoleBinding");
        String serviceAccount = chart.one(Deployment.class, "Deployment").getSpec().getTemplate().getSpec()
                .getServiceAccountName();
        assertThat(crb.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
        assertThat(rb.getRoleRef().getName()).isEqualTo(settings.getMetadata().getName());
        assertThat(rb.getMetadata().getNamespace()).isEqualTo("gpustack-system");
        Stream.of(crb.getSubjects(), rb.getSubjects()).forEach(subjects -> assertThat(subjects).singleElement()
                .satisfies(s -> {
                    assertThat(s.getKind()).isEqualTo("ServiceAccount");
                    assertThat(s.getName()).isEqualTo(serviceAccount);
                    assertThat(s.getNamespace()).isEqualTo(NAMESPACE);
                }));
    }

    @Test
    void theKvCacheMutateWebhookFailsClosedOnOptedInPodsOutsideItsOwnNamespaceAndKubeSystem() {
        MutatingWebhook kvcache = mutating(render(), "/kvcache/mutate");
        assertThat(kvcache.getFailurePolicy()).isEqualTo("Fail");
        assertThat(kvcache.getSideEffects()).isEqualTo("None");
        assertThat(kvcache.getReinvocationPolicy()).isEqualTo("Never");
        assertThat(kvcache.getMatchPolicy()).isEqualTo("Equivalent");
        assertThat(kvcache.getTimeoutSeconds()).isEqualTo(10);
        assertThat(kvcache.getAdmissionReviewVersions()).containsExactly("v1");
        assertThat(kvcache.getRules()).singleElement().satisfies(r -> {
            assertThat(r.getOperations()).containsExactly("CREATE");
            assertThat(r.getResources()).containsExactly("pods");
            assertThat(r.getApiGroups()).containsExactly("");
        });
        assertThat(kvcache.getObjectSelector().getMatchExpressions()).containsExactly(
                new LabelSelectorRequirement("kvcache.gpustack.ai/inject", "In", List.of("true")));
        assertThat(kvcache.getNamespaceSelector().getMatchExpressions()).containsExactly(
                new LabelSelectorRequirement("kubernetes.io/metadata.name", "NotIn", List.of(NAMESPACE, "kube-system")));
        assertThat(kvcache.getClientConfig().getService().getName()).isEqualTo(FULLNAME);
        assertThat(kvcache.getClientConfig().getService().getPort()).isEqualTo(443);
    }

    @Test
    void theCacheBlendWebhookIgnoresFailuresByDefaultAndAlsoExcludesKubePublic() {
        MutatingWebhook cacheBlend = mutating(render(), "/cacheblend/mutate");
        assertThat(cacheBlend.getFailurePolicy()).isEqualTo("Ignore");
        assertThat(cacheBlend.getSideEffects()).isEqualTo("None");
        assertThat(cacheBlend.getReinvocationPolicy()).isEqualTo("Never");
        assertThat(cacheBlend.getRules()).singleElement()
                .satisfies(r -> assertThat(r.getOperations()).containsExactly("CREATE"));
        assertThat(cacheBlend.getObjectSelector().getMatchExpressions()).containsExactly(
                new LabelSelectorRequirement("lmcache.ai/cacheblend-inject", "In", List.of("true")));
        assertThat(cacheBlend.getNamespaceSelector().getMatchExpressions()).containsExactly(
                new LabelSelectorRequirement("kubernetes.io/metadata.name", "NotIn",
                        List.of(NAMESPACE, "kube-system", "kube-public")));
    }

    @Test
    void theFreezeValidatesUpdatesAndIgnoresFailures() {
        ValidatingWebhook freeze = render().one(ValidatingWebhookConfiguration.class, "ValidatingWebhookConfiguration")
                .getWebhooks().get(0);
        assertThat(freeze.getClientConfig().getService().getPath()).isEqualTo("/kvcache/validate");
        assertThat(freeze.getFailurePolicy()).isEqualTo("Ignore");
        assertThat(freeze.getSideEffects()).isEqualTo("None");
        assertThat(freeze.getRules()).singleElement().satisfies(r -> {
            assertThat(r.getOperations()).containsExactly("UPDATE");
            assertThat(r.getResources()).containsExactly("pods");
        });
        assertThat(freeze.getObjectSelector().getMatchExpressions()).containsExactly(
                new LabelSelectorRequirement("kvcache.gpustack.ai/inject", "In", List.of("true")));
        assertThat(freeze.getNamespaceSelector().getMatchExpressions()).containsExactly(
                new LabelSelectorRequirement("kubernetes.io/metadata.name", "NotIn", List.of(NAMESPACE, "kube-system")));
    }

    @Test
    void theSelfSignedCaSignsTheServingCertificateForTheServiceAndIsEveryWebhooksBundle() throws Exception {
        RenderedChart chart = render();
        Secret tls = chart.one(Secret.class, "Secret");
        assertThat(tls.getType()).isEqualTo("kubernetes.io/tls");
        X509Certificate ca = certificate(tls.getData().get("ca.crt"));
        X509Certificate serving = certificate(tls.getData().get("tls.crt"));
        serving.verify(ca.getPublicKey());
        List<Object> names = serving.getSubjectAlternativeNames().stream().map(san -> (Object) san.get(1)).toList();
        assertThat(names).contains(
                FULLNAME + "." + NAMESPACE + ".svc", FULLNAME + "." + NAMESPACE + ".svc.cluster.local");
        assertThat(new String(Base64.getDecoder().decode(tls.getData().get("tls.key")), StandardCharsets.US_ASCII))
                .contains("PRIVATE KEY");
        assertThat(caBundles(chart)).hasSize(3).containsOnly(tls.getData().get("ca.crt"));
        Deployment deployment = chart.one(Deployment.class, "Deployment");
        assertThat(deployment.getSpec().getTemplate().getSpec().getVolumes()).anySatisfy(v ->
                assertThat(v.getSecret().getSecretName()).isEqualTo(tls.getMetadata().getName()));
    }

    @Test
    void anUpgradeKeepsTheCertificatesAlreadyInTheCluster() {
        RenderedChart first = render();
        Secret issued = first.one(Secret.class, "Secret");
        KubernetesClient client = RenderedChart.apiServer().createClient();
        try {
            client.secrets().inNamespace(NAMESPACE).resource(new SecretBuilder(issued).build()).create();
            RenderedChart upgrade = render();
            assertThat(upgrade.one(Secret.class, "Secret").getData()).isEqualTo(issued.getData());
            assertThat(caBundles(upgrade)).containsOnly(issued.getData().get("ca.crt"));
        } finally {
            client.secrets().inNamespace(NAMESPACE).withName(issued.getMetadata().getName()).delete();
            client.close();
        }
        assertThat(render().one(Secret.class, "Secret").getData()).as("a fresh install gets fresh certificates")
                .isNotEqualTo(issued.getData());
    }

    @Test
    void withCertManagerTheCaBundleIsInjectedFromTheCertificate() {
        RenderedChart chart = render(values("tls.certManager.enabled", true));
        assertThat(chart.kinds()).contains("Certificate", "Issuer").doesNotContain("Secret");
        String injectFrom = NAMESPACE + "/" + FULLNAME + "-serving-cert";
        assertThat(chart.one(MutatingWebhookConfiguration.class, "MutatingWebhookConfiguration").getMetadata()
                .getAnnotations()).containsEntry("cert-manager.io/inject-ca-from", injectFrom);
        assertThat(chart.one(ValidatingWebhookConfiguration.class, "ValidatingWebhookConfiguration").getMetadata()
                .getAnnotations()).containsEntry("cert-manager.io/inject-ca-from", injectFrom);
        assertThat(caBundles(chart)).isEmpty();

        Map<String, Object> certificate = chart.all("Certificate").get(0);
        Map<String, Object> spec = map(certificate.get("spec"));
        assertThat(map(certificate.get("metadata")).get("name")).isEqualTo(FULLNAME + "-serving-cert");
        assertThat(spec.get("secretName")).isEqualTo(FULLNAME + "-tls");
        assertThat(list(spec.get("dnsNames"))).contains(FULLNAME + "." + NAMESPACE + ".svc");
        assertThat(map(spec.get("issuerRef"))).containsEntry("name", FULLNAME + "-selfsigned")
                .containsEntry("kind", "Issuer");
    }

    @Test
    void withCertManagerAndAnIssuerTheChartCreatesNoIssuer() {
        RenderedChart chart = render(values("tls.certManager.enabled", true,
                "tls.certManager.issuerRef.name", "corp-ca", "tls.certManager.issuerRef.kind", "ClusterIssuer"));
        assertThat(chart.kinds()).contains("Certificate").doesNotContain("Issuer", "Secret");
        Map<String, Object> spec = map(chart.all("Certificate").get(0).get("spec"));
        assertThat(map(spec.get("issuerRef"))).containsEntry("name", "corp-ca")
                .containsEntry("kind", "ClusterIssuer");
    }

    @Test
    void failClosedCacheBlendFailsTheWebhookAndTellsTheServer() {
        RenderedChart chart = render(values("cacheBlend.contract.failClosed", true, "cacheBlend.contract.allowedNamespaces[0]", "lmcache",
                "cacheBlend.contract.allowedNamespaces[1]", "tmo"));
        assertThat(mutating(chart, "/cacheblend/mutate").getFailurePolicy()).isEqualTo("Fail");
        assertThat(mutating(chart, "/kvcache/mutate").getFailurePolicy()).isEqualTo("Fail");
        assertThat(webhook(chart).getArgs()).containsSubsequence("--cacheblend-allowed-namespaces", "lmcache,tmo")
                .contains("--cacheblend-fail-closed");
    }

    @Test
    void timeoutsExclusionsSettingsNamespaceAndBodyLimitAreConfigurable() {
        RenderedChart chart = render(values("webhook.timeoutSeconds", 5, "webhook.excludedNamespaces[0]", "monitoring",
                "settings.namespace", "ops", "webhook.maxBodyBytes", 1048576, "cacheBlend.controller.enabled", false));
        MutatingWebhookConfiguration mutating = chart.one(MutatingWebhookConfiguration.class,
                "MutatingWebhookConfiguration");
        assertThat(mutating.getWebhooks()).extracting(MutatingWebhook::getTimeoutSeconds).containsOnly(5);
        assertThat(chart.one(ValidatingWebhookConfiguration.class, "ValidatingWebhookConfiguration").getWebhooks()
                .get(0).getTimeoutSeconds()).isEqualTo(5);
        assertThat(mutating(chart, "/kvcache/mutate").getNamespaceSelector().getMatchExpressions().get(0).getValues())
                .containsExactly(NAMESPACE, "kube-system", "monitoring");
        assertThat(chart.one(Role.class, "Role").getMetadata().getNamespace()).isEqualTo("ops");
        assertThat(chart.one(RoleBinding.class, "RoleBinding").getMetadata().getNamespace()).isEqualTo("ops");
        assertThat(webhook(chart).getArgs()).containsSubsequence("--settings-namespace", "ops")
                .containsSubsequence("--max-body-bytes", "1048576");
    }

    @Test
    void theKubeletWaitsForTheShutdownDelayAndTheGraceBeforeItKills() {
        Deployment byDefault = render().one(Deployment.class, "Deployment");
        // 5 s answering while the endpoint leaves the API server's view, 10 s for reviews in flight, 5 s to exit
        assertThat(byDefault.getSpec().getTemplate().getSpec().getTerminationGracePeriodSeconds()).isEqualTo(20L);

        RenderedChart chart = render(values("shutdown.delaySeconds", 15, "shutdown.graceSeconds", 30));
        assertThat(webhook(chart).getArgs()).containsSubsequence("--shutdown-delay", "15s")
                .containsSubsequence("--shutdown-grace", "30s");
        assertThat(chart.one(Deployment.class, "Deployment").getSpec().getTemplate().getSpec()
                .getTerminationGracePeriodSeconds()).isEqualTo(50L);

        RenderedChart none = render(values("shutdown.delaySeconds", 0));
        assertThat(webhook(none).getArgs()).containsSubsequence("--shutdown-delay", "0s");
        assertThat(none.one(Deployment.class, "Deployment").getSpec().getTemplate().getSpec()
                .getTerminationGracePeriodSeconds()).isEqualTo(15L);

        assertThatThrownBy(() -> render(values("shutdown.delaySeconds", -1)))
                .hasMessageContaining("/shutdown/delaySeconds");
        assertThatThrownBy(() -> render(values("shutdown.delaySeconds", "5s")))
                .hasMessageContaining("/shutdown/delaySeconds");
    }

    @Test
    void aReplicaWarmsUpBeforeItIsReadyUnlessTurnedOff() {
        assertThat(webhook(render(values("warmUp.reviews", 200))).getArgs())
                .containsSubsequence("--warm-up-reviews", "200");
        assertThat(webhook(render(values("warmUp.reviews", 0))).getArgs()).doesNotContain("--warm-up-reviews");
        assertThatThrownBy(() -> render(values("warmUp.reviews", -1))).hasMessageContaining("/warmUp/reviews");
        assertThatThrownBy(() -> render(values("warmUp.reviews", 100001))).hasMessageContaining("/warmUp/reviews");
    }

    @Test
    void oneReplicaHasNoDisruptionBudgetAndHardAntiAffinityIsRequired() {
        assertThat(render(values("replicaCount", 1)).kinds()).doesNotContain("PodDisruptionBudget");
        var affinity = render(values("podAntiAffinity", "hard")).one(Deployment.class, "Deployment").getSpec()
                .getTemplate().getSpec().getAffinity().getPodAntiAffinity();
        assertThat(affinity.getRequiredDuringSchedulingIgnoredDuringExecution()).singleElement()
                .satisfies(t -> assertThat(t.getTopologyKey()).isEqualTo("kubernetes.io/hostname"));
        assertThat(affinity.getPreferredDuringSchedulingIgnoredDuringExecution()).isNullOrEmpty();
    }

    @Test
    void imageAndHeapAreConfigurable() {
        Container webhook = webhook(render(values("image.repository", "registry.example/kvi", "image.tag", "1.2.3",
                "jvm.maxRAMPercentage", 60, "jvm.extraOptions[0]", "-XX:+UseSerialGC")));
        assertThat(webhook.getImage()).isEqualTo("registry.example/kvi:1.2.3");
        assertThat(webhook.getCommand()).contains("-XX:MaxRAMPercentage=60", "-XX:+UseSerialGC");
    }

    @Test
    void theJvmRunsWithTheMeasuredFootprintOptionsAndTheImagesAotCache() {
        List<String> command = webhook(render()).getCommand();
        assertThat(command).contains("--sun-misc-unsafe-memory-access=allow", "-XX:MaxRAMPercentage=41",
                "-XX:MinRAMPercentage=41", "-XX:+UseSerialGC", "-XX:TrimNativeHeapInterval=1000",
                // the heap's shape (docs/explanation/performance.md): a fixed young generation, the heap given back
                "-Xmn16m", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30", "-XX:-ShrinkHeapInSteps",
                "-XX:AOTCache=/app/kvcache-injector.aot", "-Xlog:disable", "-Xlog:all=warning:stderr")
                .doesNotContain("-XX:+UseG1GC")
                // measured: bounding the JIT's memory per compilation cost the review path CPU (docs/explanation/performance.md)
                .noneMatch(o -> o.contains("memlimit"));
        // the measured footprint (docs/explanation/performance.md): a 131 MiB heap = 41 % of the 320Mi limit
        assertThat(webhook(render()).getResources().getLimits().get("memory").toString()).isEqualTo("320Mi");
        assertThat(webhook(render()).getResources().getRequests().get("memory").toString()).isEqualTo("176Mi");
        assertThat(webhook(render(values("jvm.youngGeneration", "32m"))).getCommand()).contains("-Xmn32m")
                .doesNotContain("-Xmn16m");
        assertThatThrownBy(() -> render(values("jvm.youngGeneration", "16 MiB")))
                .hasMessageContaining("/jvm/youngGeneration");

        List<String> g1 = webhook(render(values("jvm.gc", "g1", "jvm.aotCache", false))).getCommand();
        assertThat(g1).contains("-XX:+UseG1GC").doesNotContain("-XX:+UseSerialGC")
                .noneMatch(o -> o.startsWith("-XX:AOTCache"));
        assertThatThrownBy(() -> render(values("jvm.gc", "parallel"))).hasMessageContaining("/jvm/gc")
                .hasMessageContaining("serial");
    }

    @Test
    void noReplicaInTheClusterOnlyWhenTheWebhooksCallAServerOutsideIt() {
        assertThatThrownBy(() -> render(values("replicaCount", 0)))
                .hasMessageContaining("replicaCount=0 needs webhook.url");
        RenderedChart outside = render(values("replicaCount", 0, "webhook.url", "https://127.0.0.1:8443"));
        assertThat(outside.one(Deployment.class, "Deployment").getSpec().getReplicas()).isZero();
        assertThat(outside.kinds()).doesNotContain("PodDisruptionBudget");
    }

    @Test
    void aTimeoutTheApiServerWouldRejectIsRefusedAtRenderTime() {
        assertThatThrownBy(() -> render(values("webhook.timeoutSeconds", 31)))
                .hasMessageContaining("timeoutSeconds");
        assertThatThrownBy(() -> render(values("podAntiAffinity", "sometimes")))
                .hasMessageContaining("podAntiAffinity");
    }

    @Test
    void theChartLintsCleanlyAlsoInStrictMode() {
        LintResult lint = new Helm(RenderedChart.chartDir()).lint().strict().call();
        assertThat(lint.isFailed()).as("lint messages: %s", lint.getMessages()).isFalse();
        assertThat(lint.getMessages()).noneMatch(m -> m.contains("[ERROR]") || m.contains("[WARNING]"));
    }

    private static Container webhook(RenderedChart chart) {
        return chart.one(Deployment.class, "Deployment").getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    private static MutatingWebhook mutating(RenderedChart chart, String path) {
        return chart.one(MutatingWebhookConfiguration.class, "MutatingWebhookConfiguration").getWebhooks().stream()
                .filter(w -> path.equals(w.getClientConfig().getService().getPath()))
                .findFirst().orElseThrow(() -> new AssertionError("no mutating webhook for " + path));
    }

    private static List<String> caBundles(RenderedChart chart) {
        Stream<String> mutating = chart.one(MutatingWebhookConfiguration.class, "MutatingWebhookConfiguration")
                .getWebhooks().stream().map(w -> w.getClientConfig().getCaBundle());
        Stream<String> validating = chart.one(ValidatingWebhookConfiguration.class, "ValidatingWebhookConfiguration")
                .getWebhooks().stream().map(w -> w.getClientConfig().getCaBundle());
        return Stream.concat(mutating, validating).filter(b -> b != null && !b.isEmpty()).toList();
    }

    private static List<String> resources(List<PolicyRule> rules) {
        return rules.stream().flatMap(r -> r.getApiGroups().stream()
                .flatMap(g -> r.getResources().stream().map(res -> g + "/" + res))).toList();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    private static X509Certificate certificate(String base64Pem) throws Exception {
        byte[] pem = Base64.getDecoder().decode(base64Pem);
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(pem));
    }
}
