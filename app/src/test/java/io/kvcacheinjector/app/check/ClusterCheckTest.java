package io.kvcacheinjector.app.check;

import static io.kvcacheinjector.app.check.CheckWorkloads.cacheBlendTemplate;
import static io.kvcacheinjector.app.check.CheckWorkloads.connection;
import static io.kvcacheinjector.app.check.CheckWorkloads.deployment;
import static io.kvcacheinjector.app.check.CheckWorkloads.kvcacheTemplate;
import static io.kvcacheinjector.app.check.CheckWorkloads.pullSecret;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import io.kvcacheinjector.adapters.http.tls.Pem;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import io.kvcacheinjector.app.engines.BuiltInEngines;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ClusterCheck} over a fabric8 mock API server in CRUD mode on loopback, with the built-in engines: one run
 * reports every finding it can see for a workload, not only the first, for both contracts. Each case seeds one
 * namespace with the mistakes named in its title and asserts each finding's code, object, message and fix.
 */
class ClusterCheckTest {
    private static final String PSS = "pod-security.kubernetes.io/enforce";
    private static final KubernetesSerialization YAML = new KubernetesSerialization();
    /** Kept referenced (JUL holds loggers weakly): the mock server logs every request at INFO. */
    private static final java.util.logging.Logger MOCK = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

    static {
        MOCK.setLevel(java.util.logging.Level.WARNING);
    }

    private KubernetesMockServer server;
    private KubernetesClient client;

    @BeforeEach
    void startTheApiServerWithTheInstall() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(crdContexts()), false);
        server.start(InetAddress.getLoopbackAddress(), 0);
        client = server.createClient();
        create("""
                apiVersion: admissionregistration.k8s.io/v1
                kind: MutatingWebhookConfiguration
                metadata: {name: kvi-kvcache-injector}
                webhooks:
                  - name: inject.kvcache.kvcache-injector.io
                    admissionReviewVersions: ["v1"]
                    sideEffects: None
                    failurePolicy: Fail
                    clientConfig: {url: "https://127.0.0.1:9/kvcache/mutate", caBundle: Y2E=}
                    namespaceSelector:
                      matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kvi, kube-system]}]
                    objectSelector: {matchLabels: {kvcache.gpustack.ai/inject: "true"}}
                  - name: inject.cacheblend.kvcache-injector.io
                    admissionReviewVersions: ["v1"]
                    sideEffects: None
                    failurePolicy: Ignore
                    clientConfig: {url: "https://127.0.0.1:9/cacheblend/mutate", caBundle: Y2E=}
                    namespaceSelector:
                      matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kvi, kube-system]}]
                    objectSelector: {matchLabels: {lmcache.ai/cacheblend-inject: "true"}}
                """);
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    // ------------------------------------------------------------------------------------------------ CacheBlend

    @Test
    void aCacheBlendWorkloadWithThreeMistakesGetsAllThreeInOneRun() {
        namespace("t3", "baseline");
        engine("t3", "cb", "[{name: plugin-pull}]", "");
        // no cb-connection ConfigMap: the engine is not reconciled; no plugin-pull Secret; the namespace is baseline
        create(deployment("t3", "blend", cacheBlendTemplate("cb", "")));

        List<Finding> findings = check("t3");

        Finding skipped = only(findings, FindingCode.WORKLOAD_SKIPPED, "Deployment t3/blend");
        assertThat(skipped.message()).contains("connection-missing").contains("t3/cb-connection");
        Finding engine = only(findings, FindingCode.ENGINE_NOT_RECONCILED, "CacheBlendEngine t3/cb");
        assertThat(engine.message()).contains("ConfigMap t3/cb-connection");
        Finding secret = only(findings, FindingCode.PULL_SECRET_MISSING, "Deployment t3/blend");
        assertThat(secret.message()).contains("Secret t3/plugin-pull")
                .contains("spec.injection.imagePullSecrets of CacheBlendEngine t3/cb").contains("ImagePullBackOff");
        assertThat(secret.fix()).contains("kubectl -n t3 create secret docker-registry plugin-pull");
        Finding psa = only(findings, FindingCode.NAMESPACE_NOT_PRIVILEGED, "Deployment t3/blend");
        assertThat(psa.message()).contains("Namespace t3").contains(PSS + "=\"baseline\"").contains("hostIPC");
        assertThat(psa.fix()).contains("kubectl label ns t3 " + PSS + "=privileged");
        assertThat(codes(findings)).containsExactlyInAnyOrder("webhook-url", "engine-not-reconciled",
                "workload-skipped", "namespace-not-privileged", "pull-secret-missing");
    }

    @Test
    void aSkipOfTheTemplateItselfHiddenBehindAnUnreconciledEngineIsReportedToo() {
        namespace("t-hidden", "privileged");
        engine("t-hidden", "cb", "[]", "");
        create(deployment("t-hidden", "blend", cacheBlendTemplate("cb", "")
                .replace("\"--max-model-len\"", "\"--kv-transfer-config\", \"{}\", \"--max-model-len\"")));

        List<Finding> skips = of(check("t-hidden"), FindingCode.WORKLOAD_SKIPPED, "Deployment t-hidden/blend");

        assertThat(skips).hasSize(2);
        assertThat(skips.get(0).message()).contains("connection-missing");
        assertThat(skips.get(1).message()).startsWith("Deployment t-hidden/blend would then be admitted without"
                + " CacheBlend, once connection-missing is fixed: kv-transfer-config-present")
                .contains("--kv-transfer-config");
        assertThat(skips.get(1).fix()).contains("kv-transfer-config-present");
    }

    @Test
    void anInvalidPdRoleHidesNothingOfTheTemplate() {
        namespace("t-role", "privileged");
        engine("t-role", "cb", "[]", "");
        create(connection("t-role", "cb"));
        create(deployment("t-role", "blend", cacheBlendTemplate("cb", "lmcache.ai/pd-role: prefill")
                .replace("name: vllm", "name: cb-plugin-stage")));

        List<Finding> skips = of(check("t-role"), FindingCode.WORKLOAD_SKIPPED, "Deployment t-role/blend");

        assertThat(skips).extracting(Finding::message).satisfiesExactly(
                m -> assertThat(m).contains("pd-role-invalid").contains("prefill"),
                m -> assertThat(m).contains("once pd-role-invalid is fixed: plugin-name-taken")
                        .contains("cb-plugin-stage"));
    }

    @Test
    void anEngineInANamespaceNotAllowedIsLookedAtForWhatComesAfterAndForItsPullSecrets() {
        namespace("t-cross", "privileged");
        namespace("shared", "privileged");
        engine("shared", "cb", "[{name: shared-pull}]", "engine");
        create(connection("shared", "cb"));
        create(deployment("t-cross", "blend", cacheBlendTemplate("shared/cb", "")));

        List<Finding> findings = check("t-cross");

        List<Finding> skips = of(findings, FindingCode.WORKLOAD_SKIPPED, "Deployment t-cross/blend");
        assertThat(skips).hasSize(2);
        assertThat(skips.get(0).message()).contains("engine-ref-forbidden");
        assertThat(skips.get(1).message()).contains("once engine-ref-forbidden is fixed: target-container-not-found")
                .contains("engine");
        assertThat(only(findings, FindingCode.PULL_SECRET_MISSING, "Deployment t-cross/blend").message())
                .contains("Secret t-cross/shared-pull").contains("CacheBlendEngine shared/cb");
    }

    @Test
    void theAnnotationsPullSecretsReplaceTheEnginesAndEachMissingOneIsNamed() {
        namespace("t-ann", "privileged");
        engine("t-ann", "cb", "[{name: engine-pull}]", "");
        create(connection("t-ann", "cb"));
        create(pullSecret("t-ann", "present"));
        create(deployment("t-ann", "blend", cacheBlendTemplate("cb",
                "lmcache.ai/cacheblend-image-pull-secrets: \"present, absent\"")));

        List<Finding> findings = check("t-ann");

        Finding missing = only(findings, FindingCode.PULL_SECRET_MISSING, "Deployment t-ann/blend");
        assertThat(missing.message()).contains("Secret t-ann/absent")
                .contains("the annotation lmcache.ai/cacheblend-image-pull-secrets of Deployment t-ann/blend");
        assertThat(missing.message()).doesNotContain("engine-pull");
    }

    @Test
    void aHealthyCacheBlendWorkloadHasNoFinding() {
        namespace("t-ok", "privileged");
        engine("t-ok", "cb", "[{name: plugin-pull}]", "");
        create(connection("t-ok", "cb"));
        create(pullSecret("t-ok", "plugin-pull"));
        create(deployment("t-ok", "blend", cacheBlendTemplate("cb", "")));

        assertThat(codes(check("t-ok"))).containsOnly("webhook-url");
    }

    @Test
    void aBarePodAdmittedWithASkipIsCheckedForWhatItsNextCreationMeets() {
        namespace("t-pod", "restricted");
        create("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: blend-0
                  namespace: t-pod
                  labels: {lmcache.ai/cacheblend-inject: "true"}
                  annotations: {lmcache.ai/cacheblend-engine: nope, lmcache.ai/cacheblend-skip-reason: engine-not-found}
                spec:
                  containers: [{name: vllm, image: lmcache/vllm-openai:v0.5.3, args: ["Qwen/Qwen3-8B"]}]
                """);

        List<Finding> findings = check("t-pod");

        assertThat(only(findings, FindingCode.WORKLOAD_SKIPPED, "Pod t-pod/blend-0").message())
                .contains("engine-not-found");
        assertThat(only(findings, FindingCode.NAMESPACE_NOT_PRIVILEGED, "Pod t-pod/blend-0").message())
                .contains("Namespace t-pod").contains("\"restricted\"");
    }

    // ------------------------------------------------------------------------------------------------ kvcache

    @Test
    void aKvCacheTemplateRefusedForAMissingBindingIsAlsoCheckedForItsOwnRefusal() {
        namespace("k1", null);
        create(deployment("k1", "chat", kvcacheTemplate("missing", "",
                "[\"serve\", \"--model\", \"Qwen/Qwen3-8B\", \"--kv-transfer-config\", \"{}\"]")));

        List<Finding> refusals = of(check("k1"), FindingCode.WORKLOAD_REFUSED, "Deployment k1/chat");

        assertThat(refusals).hasSize(2);
        assertThat(refusals.get(0).message()).startsWith("Deployment k1/chat: binding-not-found: ")
                .contains("k1/missing");
        assertThat(refusals.get(1).message()).startsWith("Deployment k1/chat would then be refused, once"
                + " binding-not-found is fixed: key-owned").contains("--kv-transfer-config");
        assertThat(refusals.get(1).fix()).contains("fix this too").contains("the template");
    }

    @Test
    void anUnknownAnnotationAMissingBindingAndAShellLaunchAreThreeRefusalsInOneRun() {
        namespace("k3", null);
        create(deployment("k3", "chat", kvcacheTemplate("missing", "kvcache.gpustack.ai/bindng: chat",
                "[\"-c\", \"vllm serve Qwen/Qwen3-8B\"]").replace("command: [\"vllm\"]", "command: [\"sh\"]")));

        List<Finding> refusals = of(check("k3"), FindingCode.WORKLOAD_REFUSED, "Deployment k3/chat");

        assertThat(refusals).extracting(Finding::message).satisfiesExactly(
                m -> assertThat(m).startsWith("Deployment k3/chat: annotation-unknown: ")
                        .contains("kvcache.gpustack.ai/bindng"),
                m -> assertThat(m).startsWith("Deployment k3/chat would then be refused, once annotation-unknown is"
                        + " fixed: binding-not-found"),
                m -> assertThat(m).startsWith("Deployment k3/chat would then be refused, once annotation-unknown and"
                        + " binding-not-found are fixed: launch-shell-c"));
    }

    @Test
    void anEngineThatRequiresATransportGetsPastTheStandInBackendToItsOwnRefusal() {
        namespace("k-npu", null);
        create(deployment("k-npu", "chat", kvcacheTemplate("npu", "kvcache.gpustack.ai/manufacturer: ascend",
                "[\"serve\", \"--model\", \"Qwen/Qwen3-8B\"]\n      env: [{name: MOONCAKE_MASTER, value: \"10.0.0.1:50051\"}]")));

        List<Finding> refusals = of(check("k-npu"), FindingCode.WORKLOAD_REFUSED, "Deployment k-npu/chat");

        assertThat(refusals).extracting(Finding::message).satisfiesExactly(
                m -> assertThat(m).contains("binding-not-found"),
                m -> assertThat(m).startsWith("Deployment k-npu/chat would then be refused, once binding-not-found is"
                        + " fixed: config-source").contains("MOONCAKE_MASTER"));
    }

    @Test
    void aKvCacheTemplateRefusedOnlyForItsMissingBindingGetsOneRefusal() {
        namespace("k0", null);
        create(deployment("k0", "chat", kvcacheTemplate("missing", "",
                "[\"serve\", \"--model\", \"Qwen/Qwen3-8B\"]")));

        List<Finding> findings = check("k0");

        assertThat(of(findings, FindingCode.WORKLOAD_REFUSED, "Deployment k0/chat")).singleElement()
                .satisfies(f -> assertThat(f.message()).contains("binding-not-found"));
        assertThat(codes(findings)).containsOnly("webhook-url", "workload-refused");
    }

    // ------------------------------------------------------------------------------------------------ tenants

    @Test
    void aBindingWhoseDomainItsPoolDoesNotListIsDomainNotRegisteredAndAListedOneIsNot() {
        namespace("k-tenant", null);
        pool("pool-a", "True", "[{name: registered, binding: {namespace: k-tenant, name: listed}, blockSize: 128,"
                + " dtype: bfloat16}]");
        binding("k-tenant", "listed", "pool-a", "registered");
        binding("k-tenant", "unlisted", "pool-a", "team-a-chat");
        binding("k-tenant", "unnamed", "pool-a", "");

        List<Finding> findings = check("k-tenant");

        assertThat(only(findings, FindingCode.DOMAIN_NOT_REGISTERED, "KVCachePoolBinding k-tenant/unlisted")
                .message()).contains("\"team-a-chat\"").contains("KVCachePool pool-a").contains("it lists \"registered\"");
        assertThat(only(findings, FindingCode.DOMAIN_NOT_REGISTERED, "KVCachePoolBinding k-tenant/unnamed")
                .message()).contains("\"default\"");
        assertThat(codes(findings)).containsExactlyInAnyOrder("webhook-url", "domain-not-registered",
                "domain-not-registered");
    }

    @Test
    void aPoolThatPublishesNoDomainListOrNoLedgerGivesNoDomainFinding() {
        namespace("k-nolist", null);
        pool("pool-nolist", "True", null);
        pool("pool-noledger", "False", "[]");
        binding("k-nolist", "a", "pool-nolist", "team-a-chat");
        binding("k-nolist", "b", "pool-noledger", "team-a-chat");

        assertThat(codes(check("k-nolist"))).containsOnly("webhook-url");
    }

    // ------------------------------------------------------------------------------------------------ certificate

    @Test
    void aServingCertificateThatExpiresInTenDaysIsAWarningNamingTheMountedSecretAndTheChartsRenewal() {
        create("""
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: kvi-kvcache-injector
                  namespace: kvi
                  labels: {app.kubernetes.io/name: kvcache-injector, app.kubernetes.io/instance: kvi}
                spec:
                  selector: {matchLabels: {app.kubernetes.io/name: kvcache-injector}}
                  template:
                    metadata: {labels: {app.kubernetes.io/name: kvcache-injector}}
                    spec:
                      containers: [{name: webhook, image: kvcache-injector:0.1.0, args: [serve]}]
                      volumes:
                        - {name: engines, secret: {secretName: unrelated}}
                        - {name: tls, secret: {secretName: kvi-serving}}
                """);
        servingSecret("kvi-serving", Duration.ofDays(10), Duration.ZERO, Map.of());

        List<Finding> findings = check("t-cert");

        Finding expiring = only(findings, FindingCode.CERTIFICATE_EXPIRING, "Secret kvi/kvi-serving");
        assertThat(expiring.code().severity()).isEqualTo(Severity.WARNING);
        assertThat(expiring.message()).contains("serving certificate in Secret kvi/kvi-serving (tls.crt")
                .contains("in 9 days (under 30 days)").contains("every call of MutatingWebhookConfiguration");
        assertThat(expiring.fix()).contains("kubectl -n kvi delete secret kvi-serving && helm upgrade kvi"
                + " deploy/helm/kvcache-injector -n kvi --reuse-values").contains("tls.certManager.enabled=true");
        assertThat(codes(findings)).containsExactlyInAnyOrder("webhook-url", "certificate-expiring");
    }

    @Test
    void anExpiredCertificateCertManagerIssuedIsAnErrorWithCertManagersRenewal() {
        // no Deployment: the chart's Secret name, <configuration>-tls
        servingSecret("kvi-kvcache-injector-tls", Duration.ofDays(10), Duration.ofDays(20),
                Map.of("cert-manager.io/certificate-name", "kvi-kvcache-injector-serving-cert"));

        List<Finding> findings = check("t-cert");

        Finding expired = only(findings, FindingCode.CERTIFICATE_EXPIRED, "Secret kvi/kvi-kvcache-injector-tls");
        assertThat(expired.code().severity()).isEqualTo(Severity.ERROR);
        assertThat(expired.message()).contains("Secret kvi/kvi-kvcache-injector-tls").contains("expired at")
                .contains("(10 days ago)").contains("refuses the TLS handshake");
        assertThat(expired.fix()).contains("kubectl -n kvi describe certificate kvi-kvcache-injector-serving-cert")
                .contains("cmctl renew -n kvi kvi-kvcache-injector-serving-cert").doesNotContain("helm upgrade");
        assertThat(codes(findings)).doesNotContain("certificate-expiring");
    }

    @Test
    void aCertificateValidForSixtyDaysOrNoSecretAtAllGivesNoCertificateFinding() {
        assertThat(codes(check("t-cert"))).containsOnly("webhook-url");
        servingSecret("kvi-kvcache-injector-tls", Duration.ofDays(60), Duration.ZERO, Map.of());

        assertThat(codes(check("t-cert"))).containsOnly("webhook-url");
    }

    /** A kubernetes.io/tls Secret in kvi with a real certificate valid for {@code validity} from {@code ago} ago. */
    private void servingSecret(String name, Duration validity, Duration ago, Map<String, String> annotations) {
        SelfSignedCertificate certificate = SelfSignedCertificate.generate(List.of("kvi-kvcache-injector.kvi.svc"),
                List.of(), validity, Clock.offset(Clock.systemUTC(), ago.negated()));
        Base64.Encoder b64 = Base64.getEncoder();
        create(new SecretBuilder().withNewMetadata().withName(name).withNamespace("kvi").withAnnotations(annotations)
                .endMetadata().withType("kubernetes.io/tls")
                .addToData("tls.crt", b64.encodeToString(Pem.write(certificate.serving().chain())
                        .getBytes(StandardCharsets.US_ASCII)))
                .addToData("tls.key", b64.encodeToString(Pem.write(certificate.serving().key())
                        .getBytes(StandardCharsets.US_ASCII)))
                .addToData("ca.crt", b64.encodeToString(certificate.caPem().getBytes(StandardCharsets.US_ASCII)))
                .build());
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private List<Finding> check(String namespace) {
        try {
            return new ClusterCheck(client, Optional.of(namespace), BuiltInEngines.engines()).run();
        } catch (ClusterCheck.ClusterUnreadable e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    private static List<Finding> of(List<Finding> findings, FindingCode code, String object) {
        return findings.stream().filter(f -> f.code() == code && f.object().equals(object)).toList();
    }

    private static Finding only(List<Finding> findings, FindingCode code, String object) {
        List<Finding> hits = of(findings, code, object);
        assertThat(hits).as("one %s on %s in %s", code, object, findings).hasSize(1);
        return hits.get(0);
    }

    private static List<String> codes(List<Finding> findings) {
        return findings.stream().map(f -> f.code().id()).toList();
    }

    private void create(String yaml) {
        create(YAML.unmarshal(yaml, HasMetadata.class));
    }

    private void create(HasMetadata object) {
        client.resource(object).create();
    }

    private void namespace(String name, String enforce) {
        create("""
                apiVersion: v1
                kind: Namespace
                metadata:
                  name: %s
                  labels: {%s}
                """.formatted(name, enforce == null ? "" : PSS + ": " + enforce));
    }

    private void pool(String name, String ledger, String domains) {
        GenericKubernetesResource pool = YAML.unmarshal("""
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCachePool
                metadata: {name: %s}
                spec: {backends: [mc]}
                status:
                  clientEndpoint: "mc.kv.svc:50051"
                  conditions: [{type: QuotaLedgerAvailable, status: "%s", reason: %s}]
                  %s
                """.formatted(name, ledger, "True".equals(ledger) ? "Available" : "MultiTenancyDisabled",
                domains == null ? "" : "domains: " + domains), GenericKubernetesResource.class);
        var pools = client.genericKubernetesResources(LiveClusterDirectory.context(ClusterKind.KV_CACHE_POOL));
        pools.resource(pool).create();
        pools.resource(pool).updateStatus();
    }

    private void binding(String namespace, String name, String pool, String domain) {
        createIn(ClusterKind.KV_CACHE_POOL_BINDING, namespace, """
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCachePoolBinding
                metadata: {name: %s, namespace: %s}
                spec:
                  poolRef: {name: %s}
                  domain: {name: "%s", dtype: bfloat16}
                """.formatted(name, namespace, pool, domain));
    }

    private void engine(String namespace, String name, String pullSecrets, String targetContainer) {
        createIn(ClusterKind.CACHE_BLEND_ENGINE, namespace, """
                apiVersion: lmcache.lmcache.ai/v1alpha1
                kind: CacheBlendEngine
                metadata: {name: %s, namespace: %s}
                spec:
                  image: {repository: lmcache/vllm-openai, tag: v0.5.3}
                  injection:
                    payloadImage: {repository: tensormesh/cacheblend-plugin, tag: v0.5.3}
                    imagePullSecrets: %s
                    targetContainer: "%s"
                """.formatted(name, namespace, pullSecrets, targetContainer));
    }

    /** Creates the custom object {@code yaml} of {@code kind} in {@code namespace}. */
    private void createIn(ClusterKind kind, String namespace, String yaml) {
        client.genericKubernetesResources(LiveClusterDirectory.context(kind)).inNamespace(namespace)
                .resource(YAML.unmarshal(yaml, GenericKubernetesResource.class)).create();
    }

    private static List<CustomResourceDefinitionContext> crdContexts() {
        try (Stream<Path> files = Files.list(Path.of("..", "deploy", "crds"))) {
            List<CustomResourceDefinitionContext> contexts = new ArrayList<>();
            for (Path f : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                contexts.add(CustomResourceDefinitionContext.fromCrd(YAML.unmarshal(Files.readString(f),
                        CustomResourceDefinition.class)));
            }
            return contexts;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
