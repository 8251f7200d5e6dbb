package io.kvcacheinjector.app.e2e;

import static io.kvcacheinjector.app.e2e.E2eObjects.FULLNAME;
import static io.kvcacheinjector.app.e2e.E2eObjects.INJECTED;
import static io.kvcacheinjector.app.e2e.E2eObjects.NAMESPACE;
import static io.kvcacheinjector.app.e2e.E2eObjects.RELEASE;
import static io.kvcacheinjector.app.e2e.E2eObjects.RELEASE_NAMESPACE;
import static io.kvcacheinjector.app.e2e.E2eObjects.SETTINGS_NAMESPACE;
import static io.kvcacheinjector.app.e2e.E2eSupport.await;
import static io.kvcacheinjector.app.e2e.E2eSupport.awaitCrdsEstablished;
import static io.kvcacheinjector.app.e2e.E2eSupport.chartDir;
import static io.kvcacheinjector.app.e2e.E2eSupport.createExampleCluster;
import static io.kvcacheinjector.app.e2e.E2eSupport.deleteRecursively;
import static io.kvcacheinjector.app.e2e.E2eSupport.since;
import static io.kvcacheinjector.app.check.CheckWorkloads.connection;
import static io.kvcacheinjector.app.check.CheckWorkloads.deployment;
import static io.kvcacheinjector.app.check.CheckWorkloads.pullSecret;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kvcacheinjector.app.check.CheckWorkloads;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * {@code kvcache-injector check} against a real kube-apiserver: one control plane, the chart installed with its
 * webhooks at a loopback {@code webhook.url}, a healthy namespace ({@code team-a}) that reports no error, and one
 * namespace per mistake, each created with that mistake. Every finding code is produced here by the built jar run as
 * a child process, and its code, object and exit status asserted. Findings are read from {@code -o json}; one case
 * reads the text output.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CheckE2E {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final KubernetesSerialization YAML = new KubernetesSerialization();
    private static final String PSS = "pod-security.kubernetes.io/enforce";
    private static final String INSTALL = "MutatingWebhookConfiguration " + FULLNAME;

    private static Path workDir;
    private static Path jar;
    private static ControlPlane controlPlane;
    private static KubernetesClient admin;
    private static WebhookProcess webhook;
    private static Path adminConfig;
    private static Run beforeInstall;
    private static boolean skipped;
    /** Every finding code any run printed, for the last case. */
    private static final java.util.Set<String> SEEN = new java.util.TreeSet<>();

    /** One run of {@code check}: exit status, stdout, stderr, and stdout as JSON when it is. */
    record Run(int exit, String out, String err) {
        List<JsonNode> findings() {
            try {
                List<JsonNode> out = new ArrayList<>();
                JSON.readTree(this.out).path("findings").forEach(out::add);
                return out;
            } catch (IOException e) {
                throw new AssertionError("check did not print JSON: " + this.out + this.err, e);
            }
        }

        List<JsonNode> findings(String code) {
            return findings().stream().filter(f -> f.path("code").asText().equals(code)).toList();
        }

        List<String> codes() {
            return findings().stream().map(f -> f.path("code").asText()).toList();
        }

        /** The one finding of {@code code} on {@code object}; fails listing every finding otherwise. */
        JsonNode finding(String code, String object) {
            List<JsonNode> hits = findings(code).stream().filter(f -> f.path("object").asText().equals(object))
                    .toList();
            assertThat(hits).as("finding %s on %s in\n%s%s", code, object, out, err).hasSize(1);
            return hits.get(0);
        }
    }

    @BeforeAll
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // a cold provisioning builds both binaries
    static void startTheControlPlaneCheckAnEmptyClusterAndInstallTheChart() throws IOException {
        long start = System.nanoTime();
        Path repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        jar = Path.of(System.getProperty("kvcache.e2e.jar", "target/kvcache-injector.jar")).toAbsolutePath();
        ControlPlaneBinaries.Found found = ControlPlaneBinaries.locate(repo, System.getenv());
        if (found instanceof ControlPlaneBinaries.Unavailable unavailable) {
            skipped = true;
            System.out.println("e2e: SKIPPED: " + unavailable.reason());
            Assumptions.abort(unavailable.reason());
        }
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the built jar " + jar + " is missing; the e2e profile runs after"
                    + " `package` (bin/mvn -Pe2e -pl app -am verify)");
        }
        workDir = Files.createTempDirectory("kvcache-check-e2e");
        controlPlane = ControlPlane.start(((ControlPlaneBinaries.Available) found).dir(), workDir);
        admin = controlPlane.adminClient();
        adminConfig = workDir.resolve("admin.kubeconfig");
        Files.writeString(adminConfig, controlPlane.kubeconfig(ControlPlane.ADMIN_TOKEN, "e2e-admin"));
        namespace(RELEASE_NAMESPACE, null);
        namespace(SETTINGS_NAMESPACE, null);
        namespace(NAMESPACE, "privileged");

        // before the install: a Pod opted in with nobody to inject it
        namespace("t-early", null);
        admin.pods().inNamespace("t-early").resource(E2eObjects.vllm("early-0", "t-early", "chat")).create();
        beforeInstall = check("--all-namespaces", "-o", "json");

        SelfSignedCertificate certificate = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
        int webhookPort = ControlPlane.freePorts(1)[0];
        String caBundle = Base64.getEncoder().encodeToString(certificate.caPem().getBytes(StandardCharsets.US_ASCII));
        Release installed = new Helm(chartDir(repo)).install().withName(RELEASE).withNamespace(RELEASE_NAMESPACE)
                .withKubeConfigContents(controlPlane.kubeconfig(ControlPlane.ADMIN_TOKEN, "e2e-admin"))
                .set("webhook.url", "https://127.0.0.1:" + webhookPort).set("webhook.caBundle", caBundle)
                .set("settings.namespace", SETTINGS_NAMESPACE).call();
        assertThat(installed.getStatus()).as("helm install status").isEqualTo("deployed");
        awaitCrdsEstablished(admin);
        createExampleCluster(admin);
        String token = admin.serviceAccounts().inNamespace(RELEASE_NAMESPACE).withName(FULLNAME)
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
                .getStatus().getToken();
        webhook = WebhookProcess.start(jar, workDir.resolve("webhook"), certificate, webhookPort,
                controlPlane.kubeconfig(token, FULLNAME), RELEASE_NAMESPACE, SETTINGS_NAMESPACE);

        // the healthy namespace: a kvcache Deployment, a CacheBlend Deployment with everything it needs, and a Pod
        // injected by the running webhook
        create(deployment(NAMESPACE, "chat", kvcacheTemplate("chat")));
        create(engine(NAMESPACE, "cb", "v0.5.3", "v0.5.3", true));
        create(connection(NAMESPACE, "cb"));
        create(pullSecret(NAMESPACE, "cacheblend-plugin-pull"));
        create(deployment(NAMESPACE, "blend", cacheBlendTemplate("cb")));
        Pod injected = E2eObjects.vllm("chat-0", NAMESPACE, "chat");
        await("the webhook to inject chat-0", Duration.ofSeconds(30), () -> admin.pods().inNamespace(NAMESPACE)
                .resource(injected).dryRun().create().getMetadata().getAnnotations().containsKey(INJECTED));
        admin.pods().inNamespace(NAMESPACE).resource(injected).create();

        // one namespace per mistake
        namespace("t-refused", null);
        create(deployment("t-refused", "chat", kvcacheTemplate("missing")));
        namespace("t-skipped", "privileged");
        create(deployment("t-skipped", "blend", cacheBlendTemplate("nope")));
        Pod skipped = admin.pods().inNamespace("t-skipped").resource(YAML.unmarshal("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: blend-0
                  namespace: t-skipped
                  labels: {lmcache.ai/cacheblend-inject: "true"}
                  annotations: {lmcache.ai/cacheblend-engine: nope}
                spec:
                  containers:
                    - name: vllm
                      image: lmcache/vllm-openai:v0.5.3
                      args: ["Qwen/Qwen3-8B"]
                """, Pod.class)).create(); // through the running webhook, which skips it
        assertThat(skipped.getMetadata().getAnnotations()).containsEntry("lmcache.ai/cacheblend-skip-reason",
                "engine-not-found");
        namespace("t-pss", "baseline");
        create(engine("t-pss", "cb", "v0.5.3", "v0.5.3", false));
        create(connection("t-pss", "cb"));
        create(deployment("t-pss", "blend", cacheBlendTemplate("cb")));
        namespace("t-secret", "privileged");
        create(engine("t-secret", "cb", "v0.5.3", "v0.5.3", true));
        create(connection("t-secret", "cb"));
        create(deployment("t-secret", "blend", cacheBlendTemplate("cb")));
        create(deployment(RELEASE_NAMESPACE, "chat", kvcacheTemplate("chat")));
        namespace("t-engine", "privileged");
        create(engine("t-engine", "cb", "v0.5.3", "v0.5.3", false));
        namespace("t-images", "privileged");
        create(engine("t-images", "cb", "v0.5.3", "v0.5.2", false));
        create(connection("t-images", "cb"));
        // three mistakes in one workload: an engine not yet reconciled (no connection ConfigMap), its pull Secret
        // missing from the workload namespace, and a namespace whose Pod Security level rejects hostIPC
        namespace("t-three", "baseline");
        create(engine("t-three", "cb", "v0.5.3", "v0.5.3", true));
        create(deployment("t-three", "blend", cacheBlendTemplate("cb")));
        // a kvcache template whose own refusal (key-owned) sits behind its missing Binding
        namespace("t-behind", null);
        create(deployment("t-behind", "chat", kvcacheTemplate("missing").replace("\"Qwen/Qwen3-8B\"]",
                "\"Qwen/Qwen3-8B\", \"--kv-transfer-config\", \"{}\"]")));
        GenericKubernetesResource binding = E2eObjects.binding("chat", "shared", "t-early-chat", false);
        binding.getMetadata().setNamespace("t-early");
        create(binding);
        // a pool whose controller published the domains it registered in the master's quota policy: one of the two
        // Bindings naming it is among them
        namespace("t-tenants", null);
        GenericKubernetesResource registered = E2eObjects.pool("registered", "mc", "mc-leader.kv.svc:50051");
        @SuppressWarnings("unchecked")
        Map<String, Object> status = (Map<String, Object>) registered.getAdditionalProperties().get("status");
        status.put("domains", List.of(Map.of("name", "t-tenants-listed",
                "binding", Map.of("namespace", "t-tenants", "name", "listed"))));
        GenericKubernetesResource pool = admin.resource(registered).create();
        pool.getAdditionalProperties().put("status", status);
        admin.resource(pool).updateStatus();
        for (String name : List.of("listed", "unlisted")) {
            GenericKubernetesResource b = E2eObjects.binding(name, "registered", "t-tenants-" + name, false);
            b.getMetadata().setNamespace("t-tenants");
            create(b);
        }
        System.out.println("e2e: check set-up took " + Timings.format(since(start)));
    }

    @AfterAll
    static void stopEverything() {
        if (skipped) {
            return;
        }
        if (webhook != null && webhook.alive()) {
            webhook.stop();
        }
        if (admin != null) {
            admin.close();
        }
        if (controlPlane != null) {
            controlPlane.stop();
        }
        if (workDir != null && !Boolean.getBoolean("kvcache.e2e.keep")) {
            deleteRecursively(workDir);
        }
    }

    // ------------------------------------------------------------------------------------------------ cases

    @Test
    @Order(1)
    void onAClusterWithoutTheInstallTheWebhookAndTheCrdsAreMissing() {
        assertThat(beforeInstall.exit()).as(beforeInstall.err()).isEqualTo(1);
        JsonNode missing = beforeInstall.finding("webhook-missing", "MutatingWebhookConfiguration (none)");
        assertThat(missing.path("severity").asText()).isEqualTo("error");
        assertThat(missing.path("message").asText()).contains("inject.kvcache.kvcache-injector.io");
        assertThat(missing.path("fix").asText()).contains("helm upgrade --install");
        for (String crd : List.of("kvcachepoolbindings", "kvcachepools", "kvcachebackends")) {
            JsonNode f = beforeInstall.finding("crd-missing", "CustomResourceDefinition " + crd + ".worker.gpustack.ai");
            assertThat(f.path("fix").asText()).contains("install the CRD " + crd + ".worker.gpustack.ai");
        }
    }

    @Test
    @Order(2)
    void aHealthyNamespaceReportsNoErrorAndNoWarningOnlyThatTheWebhookIsCalledByUrl() {
        Run run = check("--namespace", NAMESPACE, "-o", "json");
        assertThat(run.exit()).as(run.out() + run.err()).isZero();
        assertThat(run.codes()).as(run.out()).containsExactly("webhook-url");
        JsonNode url = run.finding("webhook-url", INSTALL + " (webhook inject.kvcache.kvcache-injector.io)");
        assertThat(url.path("severity").asText()).isEqualTo("info");
        assertThat(url.path("message").asText()).contains("https://127.0.0.1:");
    }

    @Test
    @Order(3)
    void theTextOutputOfAHealthyNamespaceEndsWithTheSummary() {
        Run run = check("-n", NAMESPACE);
        assertThat(run.exit()).isZero();
        assertThat(run.out()).startsWith("info webhook-url " + INSTALL)
                .endsWith("0 errors, 0 warnings, 1 info in namespace " + NAMESPACE + "\n");
        assertThat(run.err()).isEmpty();
    }

    @Test
    @Order(4)
    void aPodCreatedBeforeTheWebhookIsNotInjected() {
        Run run = check("-n", "t-early", "-o", "json");
        assertThat(run.exit()).isEqualTo(1);
        JsonNode f = run.finding("pod-not-injected", "Pod t-early/early-0");
        assertThat(f.path("message").asText()).contains("kvcache.gpustack.ai/injected");
        assertThat(f.path("fix").asText()).contains("delete the Pod");
        assertThat(run.codes()).doesNotContain("workload-refused");
    }

    @Test
    @Order(5)
    void aTemplateTheWebhookWouldRefuseIsReportedWithTheRefusal() {
        Run run = check("-n", "t-refused", "-o", "json");
        assertThat(run.exit()).isEqualTo(1);
        JsonNode f = run.finding("workload-refused", "Deployment t-refused/chat");
        assertThat(f.path("message").asText()).startsWith("Deployment t-refused/chat: binding-not-found: ")
                .contains("t-refused/missing").contains("create the Binding, or correct the name");
    }

    @Test
    @Order(6)
    void aCacheBlendTemplateTheWebhookWouldSkipIsReportedWithTheSkip() {
        Run run = check("-n", "t-skipped", "-o", "json");
        assertThat(run.exit()).isEqualTo(1);
        JsonNode f = run.finding("workload-skipped", "Deployment t-skipped/blend");
        assertThat(f.path("message").asText()).contains("engine-not-found").contains("t-skipped/nope");
        // the Pod the running webhook skipped carries the code, and check reads it from there
        JsonNode pod = run.finding("workload-skipped", "Pod t-skipped/blend-0");
        assertThat(pod.path("message").asText()).contains("lmcache.ai/cacheblend-skip-reason is \"engine-not-found\"");
        assertThat(run.codes()).doesNotContain("pod-not-injected");
    }

    @Test
    @Order(7)
    void aCacheBlendWorkloadInANamespaceThatIsNotPrivilegedIsAnError() {
        Run run = check("-n", "t-pss", "-o", "json");
        assertThat(run.exit()).isEqualTo(1);
        JsonNode f = run.finding("namespace-not-privileged", "Deployment t-pss/blend");
        assertThat(f.path("message").asText()).contains("Namespace t-pss").contains(PSS + "=\"baseline\"")
                .contains("hostIPC");
        assertThat(f.path("fix").asText()).contains("kubectl label ns t-pss " + PSS + "=privileged");
    }

    @Test
    @Order(8)
    void aPullSecretMissingFromTheWorkloadNamespaceIsAnError() {
        Run run = check("-n", "t-secret", "-o", "json");
        assertThat(run.exit()).isEqualTo(1);
        JsonNode f = run.finding("pull-secret-missing", "Deployment t-secret/blend");
        assertThat(f.path("message").asText()).contains("Secret t-secret/cacheblend-plugin-pull")
                .contains("ImagePullBackOff");
        assertThat(f.path("fix").asText()).contains("kubectl -n t-secret create secret docker-registry"
                + " cacheblend-plugin-pull");
    }

    @Test
    @Order(9)
    void anOptInInTheReleaseNamespaceIsNeverInjected() {
        Run run = check("-n", RELEASE_NAMESPACE, "-o", "json");
        assertThat(run.exit()).isEqualTo(1);
        JsonNode f = run.finding("release-namespace-opt-in", "Deployment " + RELEASE_NAMESPACE + "/chat");
        assertThat(f.path("message").asText()).contains("install's release namespace");
        assertThat(f.path("fix").asText()).contains("another namespace");
    }

    @Test
    @Order(10)
    void anEngineWithoutItsConnectionConfigMapIsNotReconciled() {
        Run run = check("-n", "t-engine", "-o", "json");
        assertThat(run.exit()).isEqualTo(1);
        JsonNode f = run.finding("engine-not-reconciled", "CacheBlendEngine t-engine/cb");
        assertThat(f.path("message").asText()).contains("ConfigMap t-engine/cb-connection");
        assertThat(f.path("fix").asText()).contains("ConfigValid");
    }

    @Test
    @Order(11)
    void anEngineWhosePayloadTagDiffersFromItsImageTagIsAWarning() {
        Run run = check("-n", "t-images", "-o", "json");
        assertThat(run.exit()).as("a warning alone does not fail check").isZero();
        JsonNode f = run.finding("images-mismatched", "CacheBlendEngine t-images/cb");
        assertThat(f.path("severity").asText()).isEqualTo("warning");
        assertThat(f.path("message").asText()).contains("\"v0.5.3\"").contains("\"v0.5.2\"").contains("ImportError");
    }

    @Test
    @Order(12)
    void anotherWebhookSelectingTheCacheBlendLabelConflicts() {
        MutatingWebhookConfiguration upstream = YAML.unmarshal("""
                apiVersion: admissionregistration.k8s.io/v1
                kind: MutatingWebhookConfiguration
                metadata: {name: lmcache-operator-mutating-webhook}
                webhooks:
                  - name: cacheblend.lmcache.ai
                    admissionReviewVersions: ["v1"]
                    sideEffects: None
                    failurePolicy: Ignore
                    clientConfig: {url: "https://127.0.0.1:9/mutate"}
                    rules:
                      - {apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["CREATE"]}
                    objectSelector:
                      matchLabels: {lmcache.ai/cacheblend-inject: "true"}
                """, MutatingWebhookConfiguration.class);
        admin.resource(upstream).create();
        try {
            Run run = check("-n", NAMESPACE, "-o", "json");
            assertThat(run.exit()).isZero();
            JsonNode f = run.finding("webhook-conflict", "MutatingWebhookConfiguration"
                    + " lmcache-operator-mutating-webhook (webhook cacheblend.lmcache.ai)");
            assertThat(f.path("message").asText()).contains("lmcache.ai/cacheblend-inject");
            assertThat(f.path("fix").asText()).contains("objectSelector");
        } finally {
            admin.resource(upstream).delete();
        }
    }

    @Test
    @Order(13)
    void readsTheseCredentialsMayNotMakeAreReportedAsNotChecked() throws IOException {
        create(YAML.unmarshal("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRole
                metadata: {name: webhook-lister}
                rules:
                  - apiGroups: ["admissionregistration.k8s.io"]
                    resources: ["mutatingwebhookconfigurations"]
                    verbs: ["list"]
                """, HasMetadata.class));
        create(YAML.unmarshal("""
                apiVersion: v1
                kind: ServiceAccount
                metadata: {name: lister, namespace: team-a}
                """, HasMetadata.class));
        create(YAML.unmarshal("""
                apiVersion: rbac.authorization.k8s.io/v1
                kind: ClusterRoleBinding
                metadata: {name: webhook-lister}
                roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: webhook-lister}
                subjects: [{kind: ServiceAccount, name: lister, namespace: team-a}]
                """, HasMetadata.class));
        String token = admin.serviceAccounts().inNamespace(NAMESPACE).withName("lister")
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(600L).endSpec().build())
                .getStatus().getToken();
        Path config = workDir.resolve("lister.kubeconfig");
        Files.writeString(config, controlPlane.kubeconfig(token, "lister"));
        Run run = checkWith(config, "-n", NAMESPACE, "-o", "json");
        assertThat(run.exit()).as(run.out() + run.err()).isZero();
        List<JsonNode> pods = run.findings("not-checked").stream()
                .filter(f -> f.path("object").asText().startsWith("Pods in namespace team-a (HTTP 403")).toList();
        assertThat(pods).as(run.out()).hasSize(1);
        assertThat(pods.get(0).path("severity").asText()).isEqualTo("info");
        assertThat(pods.get(0).path("message").asText()).contains("forbidden");
        assertThat(run.codes()).as("nothing but not-checked and the install's url").containsOnly("not-checked",
                "webhook-url");
    }

    @Test
    @Order(14)
    void anUnreachableApiServerOrAWrongContextExitsTwoWithOneLine() throws IOException {
        int closed = ControlPlane.freePorts(1)[0];
        Path config = workDir.resolve("unreachable.kubeconfig");
        Files.writeString(config, controlPlane.kubeconfig(ControlPlane.ADMIN_TOKEN, "e2e-admin")
                .replace(controlPlane.url(), "https://127.0.0.1:" + closed));
        Run run = checkWith(config, "-n", NAMESPACE);
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err().strip()).startsWith("check: cannot read the cluster at https://127.0.0.1:" + closed)
                .doesNotContain("\n").containsPattern("no answer: \\w+Exception").contains("check the kubeconfig");

        Run wrongContext = check("--context", "staging", "-n", NAMESPACE);
        assertThat(wrongContext.exit()).isEqualTo(2);
        assertThat(wrongContext.out()).isEmpty();
        assertThat(wrongContext.err().strip()).isEqualTo("check: context \"staging\" is not in the kubeconfig "
                + adminConfig + " (its contexts: e2e); pass one of them with --context");
    }

    @Test
    @Order(15)
    void aCacheBlendWorkloadWithThreeMistakesGetsAllThreeInOneRun() {
        Run run = check("-n", "t-three", "-o", "json");
        assertThat(run.exit()).isEqualTo(1);
        JsonNode engine = run.finding("engine-not-reconciled", "CacheBlendEngine t-three/cb");
        assertThat(engine.path("message").asText()).contains("ConfigMap t-three/cb-connection");
        assertThat(engine.path("fix").asText()).contains("ConfigValid");
        JsonNode skipped = run.finding("workload-skipped", "Deployment t-three/blend");
        assertThat(skipped.path("message").asText()).contains("connection-missing");
        JsonNode secret = run.finding("pull-secret-missing", "Deployment t-three/blend");
        assertThat(secret.path("message").asText()).contains("Secret t-three/cacheblend-plugin-pull")
                .contains("CacheBlendEngine t-three/cb").contains("ImagePullBackOff");
        assertThat(secret.path("fix").asText()).contains("kubectl -n t-three create secret docker-registry"
                + " cacheblend-plugin-pull");
        JsonNode psa = run.finding("namespace-not-privileged", "Deployment t-three/blend");
        assertThat(psa.path("message").asText()).contains("Namespace t-three").contains(PSS + "=\"baseline\"");
        assertThat(psa.path("fix").asText()).contains("kubectl label ns t-three " + PSS + "=privileged");
        assertThat(run.codes()).as(run.out()).containsExactlyInAnyOrder("engine-not-reconciled", "webhook-url",
                "workload-skipped", "namespace-not-privileged", "pull-secret-missing");
    }

    @Test
    @Order(16)
    void aKvCacheTemplatesOwnRefusalBehindItsMissingBindingIsReportedInTheSameRun() {
        Run run = check("-n", "t-behind", "-o", "json");
        assertThat(run.exit()).isEqualTo(1);
        List<String> refusals = run.findings("workload-refused").stream()
                .filter(f -> f.path("object").asText().equals("Deployment t-behind/chat"))
                .map(f -> f.path("message").asText()).toList();
        assertThat(refusals).as(run.out()).satisfiesExactly(
                m -> assertThat(m).startsWith("Deployment t-behind/chat: binding-not-found: "),
                m -> assertThat(m).startsWith("Deployment t-behind/chat would then be refused, once binding-not-found"
                        + " is fixed: key-owned").contains("--kv-transfer-config"));
    }

    @Test
    @Order(17)
    void aBindingWhoseDomainItsPoolDoesNotListIsAWarningNamingTheBindingTheDomainAndTheFix() {
        Run run = check("-n", "t-tenants", "-o", "json");
        assertThat(run.exit()).as("a warning alone does not fail check:\n%s%s", run.out(), run.err()).isZero();
        JsonNode f = run.finding("domain-not-registered", "KVCachePoolBinding t-tenants/unlisted");
        assertThat(f.path("severity").asText()).isEqualTo("warning");
        assertThat(f.path("message").asText()).contains("\"t-tenants-unlisted\"", "KVCachePool registered",
                "\"t-tenants-listed\"", "status.domains[]");
        assertThat(f.path("fix").asText()).contains("quota policy", "TENANT_NOT_REGISTERED");
        assertThat(run.findings("domain-not-registered")).as("the Binding whose domain the pool lists").hasSize(1);
    }

    @Test
    @Order(18)
    void aServingCertificateNearItsExpiryIsAWarningAndAnExpiredOneAnErrorNamingTheChartsSecret() {
        // the chart's self-signed Secret, as it wrote it, with a leaf that expires in 10 days, then one that expired
        // 10 days ago; restored after
        String name = FULLNAME + "-tls";
        io.fabric8.kubernetes.api.model.Secret chart = admin.secrets().inNamespace(RELEASE_NAMESPACE).withName(name)
                .get();
        assertThat(chart).as("the chart's TLS Secret").isNotNull();
        String object = "Secret " + RELEASE_NAMESPACE + "/" + name;
        try {
            servingCertificate(name, Duration.ofDays(10), Duration.ZERO);
            Run expiring = check("-n", NAMESPACE, "-o", "json");
            assertThat(expiring.exit()).as("a warning alone does not fail check:\n%s%s", expiring.out(),
                    expiring.err()).isZero();
            JsonNode warning = expiring.finding("certificate-expiring", object);
            assertThat(warning.path("severity").asText()).isEqualTo("warning");
            assertThat(warning.path("message").asText()).contains("serving certificate in " + object, "in 9 days");
            assertThat(warning.path("fix").asText()).contains("kubectl -n " + RELEASE_NAMESPACE + " delete secret "
                    + name + " && helm upgrade " + RELEASE + " deploy/helm/kvcache-injector");

            servingCertificate(name, Duration.ofDays(10), Duration.ofDays(20));
            Run expired = check("-n", NAMESPACE, "-o", "json");
            assertThat(expired.exit()).isEqualTo(1);
            JsonNode error = expired.finding("certificate-expired", object);
            assertThat(error.path("severity").asText()).isEqualTo("error");
            assertThat(error.path("message").asText()).contains("expired at", "refuses the TLS handshake");
            assertThat(expired.codes()).doesNotContain("certificate-expiring");
        } finally {
            admin.secrets().inNamespace(RELEASE_NAMESPACE).withName(name).edit(s -> {
                s.setData(chart.getData());
                return s;
            });
        }
        assertThat(check("-n", NAMESPACE, "-o", "json").codes()).as("the chart's own 10-year certificate")
                .doesNotContain("certificate-expiring", "certificate-expired");
    }

    @Test
    @Order(20)
    void aServiceWebhookWithoutCaBundleAndWithoutReadyEndpointsIsReported() {
        // last: the install's webhooks are switched to the in-cluster Service, which has no endpoint here (no
        // controller runs), so the API server's proxy answers an error without calling anything
        MutatingWebhookConfiguration config = admin.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName(FULLNAME).get();
        config.getWebhooks().forEach(w -> {
            w.getClientConfig().setUrl(null);
            w.getClientConfig().setCaBundle(null);
            w.getClientConfig().setService(new io.fabric8.kubernetes.api.model.admissionregistration.v1
                    .ServiceReferenceBuilder().withNamespace(RELEASE_NAMESPACE).withName(FULLNAME)
                    .withPath("/kvcache/mutate").withPort(443).build());
        });
        admin.resource(config).update();
        Run run = check("-n", NAMESPACE, "-o", "json");
        assertThat(run.exit()).isEqualTo(1);
        JsonNode bundle = run.finding("ca-bundle-empty", INSTALL + " (webhook inject.kvcache.kvcache-injector.io)");
        assertThat(bundle.path("message").asText()).contains("caBundle");
        JsonNode unready = run.finding("webhook-unready", "Service " + RELEASE_NAMESPACE + "/" + FULLNAME);
        assertThat(unready.path("message").asText()).contains("/readyz")
                .containsPattern("answered HTTP (404|503): .*kvi-kvcache-injector").doesNotContain("{\"kind\"");
        assertThat(run.codes()).doesNotContain("webhook-url");
    }

    @Test
    @Order(99)
    void everyFindingCodeWasProducedByACase() {
        assertThat(SEEN).containsExactlyInAnyOrderElementsOf(java.util.Arrays.stream(
                io.kvcacheinjector.app.check.FindingCode.values()).map(io.kvcacheinjector.app.check.FindingCode::id)
                .toList());
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static Run check(String... args) {
        return checkWith(adminConfig, args);
    }

    private static Run checkWith(Path kubeconfig, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        if (Runtime.version().feature() >= 23) {
            command.add("--sun-misc-unsafe-memory-access=allow"); // as bin/kvcache-injector does
        }
        command.addAll(List.of("-jar", jar.toString(), "check", "--kubeconfig", kubeconfig.toString()));
        command.addAll(List.of(args));
        try {
            Path out = Files.createTempFile(workDir, "check", ".out");
            Path err = Files.createTempFile(workDir, "check", ".err");
            Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("check did not finish within 60 s: " + command);
            }
            Run run = new Run(p.exitValue(), Files.readString(out), Files.readString(err));
            if (run.out().startsWith("{")) {
                SEEN.addAll(run.codes());
            }
            System.out.println("e2e: check " + String.join(" ", args) + " -> exit " + run.exit());
            return run;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The chart's TLS Secret with a real certificate valid for {@code validity} from {@code ago} ago. */
    private static void servingCertificate(String name, Duration validity, Duration ago) {
        SelfSignedCertificate c = SelfSignedCertificate.generate(List.of(FULLNAME + "." + RELEASE_NAMESPACE + ".svc"),
                List.of(), validity, Clock.offset(Clock.systemUTC(), ago.negated()));
        Base64.Encoder b64 = Base64.getEncoder();
        admin.secrets().inNamespace(RELEASE_NAMESPACE).withName(name).edit(s -> {
            s.getData().put("tls.crt", b64.encodeToString(io.kvcacheinjector.adapters.http.tls.Pem.write(
                    c.serving().chain()).getBytes(StandardCharsets.US_ASCII)));
            s.getData().put("tls.key", b64.encodeToString(io.kvcacheinjector.adapters.http.tls.Pem.write(
                    c.serving().key()).getBytes(StandardCharsets.US_ASCII)));
            return s;
        });
    }

    private static void namespace(String name, String enforce) {
        var builder = new NamespaceBuilder().withNewMetadata().withName(name).endMetadata();
        if (enforce != null) {
            builder.editMetadata().addToLabels(PSS, enforce).endMetadata();
        }
        admin.namespaces().resource(builder.build()).create();
    }

    private static void create(HasMetadata object) {
        admin.resource(object).create();
    }

    private static String kvcacheTemplate(String binding) {
        return CheckWorkloads.kvcacheTemplate(binding, "", "[\"serve\", \"--model\", \"Qwen/Qwen3-8B\"]");
    }

    private static String cacheBlendTemplate(String engine) {
        return CheckWorkloads.cacheBlendTemplate(engine, "");
    }

    private static GenericKubernetesResource engine(String namespace, String name, String imageTag, String payloadTag,
                                                    boolean pullSecret) {
        return E2eObjects.resource("""
                apiVersion: lmcache.lmcache.ai/v1alpha1
                kind: CacheBlendEngine
                metadata: {name: %s, namespace: %s}
                spec:
                  l1: {sizeGB: 60}
                  image: {repository: lmcache/vllm-openai, tag: %s}
                  injection:
                    payloadImage: {repository: tensormesh/cacheblend-plugin, tag: %s}
                    imagePullSecrets: %s
                """.formatted(name, namespace, imageTag, payloadTag,
                pullSecret ? "[{name: cacheblend-plugin-pull}]" : "[]"));
    }

}
