package io.kvcacheinjector.app.e2e;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import static io.kvcacheinjector.app.e2e.E2eObjects.FULLNAME;
import static io.kvcacheinjector.app.e2e.E2eObjects.HOLD;
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
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.ports.service.KvCacheFreeze;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The freeze of {@code freeze.mode: auto} on a real kube-apiserver: the chart installed with {@code freeze.mode=webhook}
 * and upgraded to the default, {@code auto}, which picks the ValidatingAdmissionPolicy on an API server that serves
 * {@code admissionregistration.k8s.io/v1} policies (1.30+) and keeps the freeze webhook on one that does not (1.29);
 * every golden freeze case and a set of generated ones decided both by the webhook's use case ({@link KvCacheFreeze},
 * in this JVM) and through the API server (a server-side dry-run UPDATE, answered by the policy or by the running
 * webhook) with the same answer, codes and message; and, where the policy is served, with no webhook process running,
 * the freeze still holding on an injected Pod. The version matrix (tools/e2e/versions.txt) runs this class on every
 * API server of the chart's range.
 *
 * <p>Every case is a Pod created before the chart is installed (so no webhook or policy sees its creation), each
 * update a dry run against it. {@code -Dkvcache.e2e.freeze.seed} and {@code -Dkvcache.e2e.freeze.cases} repeat or
 * widen the generated set.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FreezePolicyE2E {
    private static final String POLICY = FULLNAME + "-freeze";
    private static final String DENIED_BY = "ValidatingAdmissionPolicy '" + POLICY + "' with binding '" + POLICY
            + "' denied request: ";
    private static final String WEBHOOK_DENIED = "admission webhook \"" + E2eObjects.FREEZE_WEBHOOK
            + "\" denied the request: ";
    private static final String NO_POLICY = "this API server serves no admissionregistration.k8s.io/v1"
            + " ValidatingAdmissionPolicy, so freeze.mode auto keeps the freeze webhook";
    private static final String AUDIT_KEY = POLICY + "/refusal";
    private static final String CHECKS = "apiserver_validating_admission_policy_check_total";
    private static final String CHECK_DURATION = "apiserver_validating_admission_policy_check_duration_seconds";
    private static final Pattern CODE = Pattern.compile("(?:^| )(frozen-[a-z-]+): ");
    private static final Duration POLICY_EFFECTIVE = Duration.ofSeconds(30);
    private static final long SEED = Long.getLong("kvcache.e2e.freeze.seed", 20261201L);
    private static final int GENERATED = Integer.getInteger("kvcache.e2e.freeze.cases", 200);
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final KvCacheFreeze WEBHOOK_FREEZE = new KvCacheFreeze();

    private static Path workDir;
    private static ControlPlane controlPlane;
    private static KubernetesClient admin;
    private static WebhookProcess webhook;
    private static List<FreezeCase> golden;
    private static List<FreezeCase> generated;
    private static boolean failed;
    private static boolean skipped;
    /** Whether the API server serves admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (1.30+). */
    private static boolean policyServed;

    @RegisterExtension
    static final TestWatcher LOGS_ON_FAILURE = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            failed = true;
            printLogTails();
        }
    };

    // ------------------------------------------------------------------------------------------------ set-up

    @BeforeAll
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // a cold provisioning builds both binaries
    static void startTheControlPlaneCreateTheCasePodsInstallTheChartAndInjectOnePod() throws IOException {
        try {
            startEverything();
        } catch (IOException | RuntimeException | Error e) {
            if (!(e instanceof org.opentest4j.TestAbortedException)) {
                failed = true;
                printLogTails();
            }
            throw e;
        }
    }

    private static void startEverything() throws IOException {
        long start = System.nanoTime();
        Path repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        Path jar = Path.of(System.getProperty("kvcache.e2e.jar", "target/kvcache-injector.jar")).toAbsolutePath();
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
        workDir = Files.createTempDirectory("kvcache-freeze-e2e");
        controlPlane = ControlPlane.start(((ControlPlaneBinaries.Available) found).dir(), workDir, true);
        admin = controlPlane.adminClient();
        policyServed = E2eSupport.servesValidatingAdmissionPolicyV1(admin);
        System.out.println("e2e: kube-apiserver " + admin.getKubernetesVersion().getGitVersion() + " at "
                + controlPlane.url() + " (audit log on), work dir " + workDir + "; the freeze of auto: "
                + (policyServed ? "the policy" : "the webhook (" + NO_POLICY + ")"));
        for (String ns : List.of(RELEASE_NAMESPACE, SETTINGS_NAMESPACE, NAMESPACE)) {
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
                    .create();
        }

        golden = FreezeCase.golden(repo);
        generated = FreezeCase.generated(SEED, GENERATED);
        long t = System.nanoTime();
        Stream.concat(golden.stream(), generated.stream()).forEach(FreezePolicyE2E::createBeforeState);
        System.out.println("e2e: " + golden.size() + " golden and " + generated.size() + " generated freeze cases"
                + " (seed " + SEED + ", -Dkvcache.e2e.freeze.seed to repeat): Pods created in "
                + Timings.format(since(t)));

        // today's registration first (freeze.mode=webhook), then an upgrade to the default, auto
        SelfSignedCertificate certificate = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
        int webhookPort = ControlPlane.freePorts(1)[0];
        String url = "https://127.0.0.1:" + webhookPort;
        String caBundle = Base64.getEncoder().encodeToString(certificate.caPem().getBytes(StandardCharsets.US_ASCII));
        String kubeconfig = controlPlane.kubeconfig(ControlPlane.ADMIN_TOKEN, "e2e-admin");
        Helm chart = new Helm(chartDir(repo));
        Release installed = chart.install().withName(RELEASE).withNamespace(RELEASE_NAMESPACE)
                .withKubeConfigContents(kubeconfig).set("webhook.url", url).set("webhook.caBundle", caBundle)
                .set("settings.namespace", SETTINGS_NAMESPACE).set("freeze.mode", "webhook").call();
        assertThat(installed.getStatus()).as("helm install status").isEqualTo("deployed");
        assertThat(admin.admissionRegistration().v1().validatingWebhookConfigurations().withName(FULLNAME).get())
                .as("the freeze webhook of freeze.mode=webhook").isNotNull();
        Release upgraded = chart.upgrade().withName(RELEASE).withNamespace(RELEASE_NAMESPACE)
                .withKubeConfigContents(kubeconfig).set("webhook.url", url).set("webhook.caBundle", caBundle)
                .set("settings.namespace", SETTINGS_NAMESPACE).call(); // freeze.mode: the default, auto
        assertThat(upgraded.getStatus()).as("helm upgrade status").isEqualTo("deployed");
        awaitCrdsEstablished(admin);

        // one Pod injected by the real webhook, which is then stopped where the policy is served: from there on only
        // the policy can freeze; elsewhere the webhook keeps running, and it is the freeze
        createExampleCluster(admin);
        String token = admin.serviceAccounts().inNamespace(RELEASE_NAMESPACE).withName(FULLNAME)
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
                .getStatus().getToken();
        webhook = WebhookProcess.start(jar, workDir.resolve("webhook"), certificate, webhookPort,
                controlPlane.kubeconfig(token, FULLNAME), RELEASE_NAMESPACE, SETTINGS_NAMESPACE);
        Pod injected = E2eObjects.vllm("injected-0", NAMESPACE, "chat");
        injected.getMetadata().setFinalizers(List.of(HOLD));
        await("the mutating webhook to inject injected-0", Duration.ofSeconds(30), () -> {
            Pod answered = admin.pods().inNamespace(NAMESPACE).resource(injected).dryRun().create();
            return answered.getMetadata().getAnnotations().containsKey(INJECTED);
        });
        admin.pods().inNamespace(NAMESPACE).resource(injected).create();
        if (!policyServed) {
            awaitFreezeEffective();
            System.out.println("e2e: the freeze webhook answers; set-up took " + Timings.format(since(start)));
            return;
        }
        webhook.stop();

        t = System.nanoTime();
        awaitFreezeEffective();
        System.out.println("e2e: policy in effect " + Timings.format(since(t)) + " after the webhook stopped; set-up"
                + " took " + Timings.format(since(start)));
    }

    /** A case's Pod in its state before the update, held by a finalizer; deleted when the case is terminating. */
    private static void createBeforeState(FreezeCase c) {
        Pod pod = new PodBuilder().withNewMetadata().withName(c.name()).withNamespace(NAMESPACE)
                .withLabels(c.labelsBefore()).withAnnotations(c.annotationsBefore()).withFinalizers(HOLD).endMetadata()
                .withNewSpec().addNewContainer().withName("server").withImage("vllm/vllm-openai:v0.29.0")
                .endContainer().endSpec().build();
        admin.pods().inNamespace(NAMESPACE).resource(pod).create();
        if (c.terminating()) {
            admin.pods().inNamespace(NAMESPACE).withName(c.name()).delete();
        }
    }

    /** Dry-run edits of an opted-in case Pod's record until the policy (or, without it, the webhook) denies them. */
    private static void awaitFreezeEffective() {
        FreezeCase probe = golden.stream().filter(c -> c.name().equals("editing-the-record")).findFirst().orElseThrow();
        await(policyServed ? "the ValidatingAdmissionPolicy to take effect" : "the freeze webhook to answer",
                POLICY_EFFECTIVE, () -> decideThroughTheApiServer(probe).filter(m -> m.contains("frozen-record: "))
                        .isPresent());
    }

    /** The API server's message for a denied update of Pod {@code pod}, up to the freeze's own message. */
    private static String deniedPrefix(String pod) {
        return policyServed ? "pods \"" + pod + "\" is forbidden: " + DENIED_BY : WEBHOOK_DENIED;
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
        if (workDir != null) {
            if (failed || Boolean.getBoolean("kvcache.e2e.keep")) {
                System.out.println("e2e: kept " + workDir + " (kube-apiserver.log, audit.log, webhook/webhook.log)");
            } else {
                deleteRecursively(workDir);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ cases

    @Test
    @Order(1)
    void anUpgradeToAutoReplacesTheFreezeWebhookWithThePolicyWhereServedAndKeepsItWhereNot() {
        if (!policyServed) {
            ValidatingWebhookConfiguration freeze = admin.admissionRegistration().v1()
                    .validatingWebhookConfigurations().withName(FULLNAME).get();
            assertThat(freeze).as("the freeze webhook kept by freeze.mode auto (%s)", NO_POLICY).isNotNull();
            assertThat(freeze.getWebhooks()).extracting(w -> w.getName()).containsExactly(E2eObjects.FREEZE_WEBHOOK);
            assertThat(admin.admissionRegistration().v1().mutatingWebhookConfigurations().withName(FULLNAME).get()
                    .getWebhooks()).extracting(w -> w.getName())
                    .containsExactly(E2eObjects.INJECT_WEBHOOK, E2eObjects.CACHEBLEND_WEBHOOK);
            KubernetesClientException edit = catchThrowableOfType(KubernetesClientException.class,
                    () -> mergePatch("injected-0", "{\"metadata\":{\"annotations\":{\"" + INJECTED + "\":\"{}\"}}}"));
            assertFrozenRecord(edit, "injected-0", "edited");
            return;
        }
        ValidatingAdmissionPolicy policy = admin.admissionRegistration().v1().validatingAdmissionPolicies()
                .withName(POLICY).get();
        ValidatingAdmissionPolicyBinding binding = admin.admissionRegistration().v1()
                .validatingAdmissionPolicyBindings().withName(POLICY).get();
        assertThat(policy).as("ValidatingAdmissionPolicy %s", POLICY).isNotNull();
        assertThat(policy.getSpec().getFailurePolicy()).isEqualTo("Ignore");
        assertThat(binding).as("ValidatingAdmissionPolicyBinding %s", POLICY).isNotNull();
        assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny");
        assertThat(admin.admissionRegistration().v1().validatingWebhookConfigurations().list().getItems())
                .as("validating webhooks").extracting(ValidatingWebhookConfiguration::getMetadata)
                .noneMatch(m -> m.getName().equals(FULLNAME));
        MutatingWebhookConfiguration mutating = admin.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName(FULLNAME).get();
        assertThat(mutating.getWebhooks()).extracting(w -> w.getName())
                .containsExactly(E2eObjects.INJECT_WEBHOOK, E2eObjects.CACHEBLEND_WEBHOOK);
        if (policy.getStatus() != null && policy.getStatus().getTypeChecking() != null) {
            assertThat(policy.getStatus().getTypeChecking().getExpressionWarnings())
                    .as("the API server's type check of the CEL against the Pod schema").isNullOrEmpty();
        }
    }

    @Test
    @Order(2)
    void everyGoldenCaseIsDecidedAlikeByTheWebhookUseCaseAndThePolicy() {
        Map<String, Integer> outcomes = compareAll(golden);
        System.out.println("e2e: golden freeze cases, identical answers: " + outcomes);
        assertThat(outcomes.keySet()).contains("admitted", "frozen-label", "frozen-record", "frozen-client-config",
                "frozen-label,frozen-record,frozen-client-config");
    }

    @Test
    @Order(3)
    void generatedCasesAreDecidedAlikeByTheWebhookUseCaseAndThePolicy() {
        long t = System.nanoTime();
        Map<String, Integer> outcomes = compareAll(generated);
        System.out.println("e2e: " + generated.size() + " generated freeze cases (seed " + SEED + "), identical"
                + " answers in " + Timings.format(since(t)) + ": " + outcomes);
        assertThat(outcomes.keySet()).as("the generated set reaches every rule, alone and combined")
                .contains("admitted", "frozen-label", "frozen-record", "frozen-client-config")
                .anyMatch(k -> k.contains(","));
        if (!policyServed) {
            return;
        }
        MetricsSnapshot metrics = metrics();
        double count = metrics.total(CHECK_DURATION + "_count", Map.of("policy", POLICY));
        double sum = metrics.total(CHECK_DURATION + "_sum", Map.of("policy", POLICY));
        System.out.printf("e2e: %s{policy=\"%s\"}: %.0f denials timed, mean %.3f ms%n", CHECK_DURATION, POLICY,
                count, count == 0 ? 0 : sum / count * 1000);
    }

    @Test
    @Order(4)
    void withNoWebhookRunningAnEditOfAnInjectedPodsRecordIsDeniedWithFrozenRecordAndAudited() {
        Assumptions.assumeTrue(policyServed, NO_POLICY + ", which needs its process (KvCacheInjectorE2E tests it)");
        assertThat(webhook.alive()).as("the webhook process").isFalse();
        String record = storedPod("injected-0").getMetadata().getAnnotations().get(INJECTED);
        assertThat(record).as("the record the webhook wrote").contains("\"binding\":\"chat\"");

        KubernetesClientException edit = catchThrowableOfType(KubernetesClientException.class,
                () -> mergePatch("injected-0", "{\"metadata\":{\"annotations\":{\"" + INJECTED + "\":\"{}\"}}}"));

        assertFrozenRecord(edit, "injected-0", "edited");
        assertThat(storedPod("injected-0").getMetadata().getAnnotations()).containsEntry(INJECTED, record);
        await("the audit event of the denied edit", Duration.ofSeconds(10), () -> auditEvents("injected-0").stream()
                .anyMatch(e -> e.path("verb").asText().equals("patch")
                        && e.path("responseStatus").path("code").asInt() == 403
                        && e.path("annotations").path(AUDIT_KEY).asText().equals("frozen-record")));
    }

    @Test
    @Order(5)
    void theTerminatingInjectedPodStaysFrozenAndItsFinalizerRemovalIsAdmitted() {
        admin.pods().inNamespace(NAMESPACE).withName("injected-0").delete();
        assertThat(storedPod("injected-0").getMetadata().getDeletionTimestamp()).as("deletionTimestamp").isNotBlank();

        KubernetesClientException strip = catchThrowableOfType(KubernetesClientException.class,
                () -> mergePatch("injected-0", "{\"metadata\":{\"annotations\":{\"" + INJECTED + "\":null}}}"));
        assertFrozenRecord(strip, "injected-0", "removed");

        mergePatch("injected-0", "{\"metadata\":{\"finalizers\":null}}");
        await("injected-0 to be gone once its finalizer is removed", Duration.ofSeconds(10),
                () -> admin.pods().inNamespace(NAMESPACE).withName("injected-0").get() == null);
    }

    @Test
    @Order(6)
    void aPlainPodsUpdateIsAdmittedAndNoPolicyEvaluationFails() {
        admin.pods().inNamespace(NAMESPACE).resource(E2eObjects.notOptedIn("plain-0")).create();
        double checksBefore = policyServed ? metrics().total(CHECKS, Map.of("policy", POLICY)) : 0;

        mergePatch("plain-0", "{\"metadata\":{\"labels\":{\"app\":\"chat\"},\"annotations\":{\"" + INJECTED
                + "\":\"written by hand\",\"kvcache.gpustack.ai/binding\":\"other\"}}}");

        assertThat(storedPod("plain-0").getMetadata().getAnnotations())
                .containsEntry(INJECTED, "written by hand").containsEntry("kvcache.gpustack.ai/binding", "other");
        if (!policyServed) {
            return;
        }
        assertThat(metrics().total(CHECKS, Map.of("policy", POLICY)))
                .as("%s{policy=\"%s\"}: denials and evaluation errors", CHECKS, POLICY).isEqualTo(checksBefore);
        assertThat(auditEvents("plain-0")).as("audit events of plain-0").isNotEmpty()
                .noneMatch(e -> e.path("annotations").has(AUDIT_KEY));
    }

    // ------------------------------------------------------------------------------------------------ comparison

    /**
     * Each case through the webhook's use case and through the policy; fails with every case whose answers differ.
     * Returns how many cases ended in each outcome ({@code admitted} or the codes, comma-joined).
     */
    private static Map<String, Integer> compareAll(List<FreezeCase> cases) {
        Map<String, Pod> stored = new LinkedHashMap<>();
        admin.pods().inNamespace(NAMESPACE).list().getItems().forEach(p -> stored.put(p.getMetadata().getName(), p));
        Map<String, Integer> outcomes = new TreeMap<>();
        List<String> differences = new ArrayList<>();
        for (FreezeCase c : cases) {
            Pod before = stored.get(c.name());
            assertThat(before).as("the Pod of case %s", c.name()).isNotNull();
            assertThat(before.getMetadata().getDeletionTimestamp() != null).as("%s terminating", c.name())
                    .isEqualTo(c.terminating());
            Pod after = after(before, c);
            Decision byWebhook = WEBHOOK_FREEZE.validate(NAMESPACE, new ReceivedPod(asMap(before)), new ReceivedPod(asMap(after)));
            Optional<String> byPolicy = decideThroughTheApiServer(after);
            String outcome = switch (byWebhook) {
                case Decision.Admit admit -> {
                    byPolicy.ifPresent(m -> differences.add(c + "\n    webhook: admitted\n    policy:  " + m));
                    yield "admitted";
                }
                case Decision.Refuse refuse -> {
                    String expected = deniedPrefix(c.name()) + refuse.message();
                    String codes = String.join(",", refuse.codes().stream().map(ReasonCode::id).toList());
                    if (byPolicy.isEmpty()) {
                        differences.add(c + "\n    webhook: " + refuse.message() + "\n    policy:  admitted");
                    } else if (!byPolicy.get().equals(expected) || !codesOf(byPolicy.get()).equals(codes)) {
                        differences.add(c + "\n    webhook: " + expected + "\n    policy:  " + byPolicy.get());
                    }
                    yield codes;
                }
                case Decision.Skip skip -> throw new AssertionError("the freeze never skips: " + skip);
            };
            c.expectedCodes().map(codes -> codes.isEmpty() ? "admitted" : String.join(",", codes))
                    .filter(expected -> !expected.equals(outcome))
                    .ifPresent(expected -> differences.add(c + "\n    golden:  " + expected + "\n    webhook: "
                            + outcome));
            outcomes.merge(outcome, 1, Integer::sum);
        }
        assertThat(differences).as("cases the webhook's use case and the policy decide differently").isEmpty();
        return outcomes;
    }

    private static Optional<String> decideThroughTheApiServer(FreezeCase c) {
        return decideThroughTheApiServer(after(storedPod(c.name()), c));
    }

    /**
     * A server-side dry-run UPDATE (PUT) to {@code after}, answered by the policy or, without it, by the freeze
     * webhook: empty when admitted, the API server's message when denied.
     */
    private static Optional<String> decideThroughTheApiServer(Pod after) {
        try {
            admin.pods().inNamespace(NAMESPACE).resource(after).dryRun().update();
            return Optional.empty();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 403 || e.getStatus() == null
                    || policyServed && !"Forbidden".equals(e.getStatus().getReason())) {
                throw e;
            }
            return Optional.of(e.getStatus().getMessage());
        }
    }

    /** The stored Pod with the case's labels and annotations after the update (and finalizers, when it says). */
    private static Pod after(Pod before, FreezeCase c) {
        Pod after = SERIALIZATION.unmarshal(SERIALIZATION.asJson(before), Pod.class);
        after.getMetadata().setLabels(new LinkedHashMap<>(c.labelsAfter()));
        after.getMetadata().setAnnotations(new LinkedHashMap<>(c.annotationsAfter()));
        c.finalizersAfter().ifPresent(f -> after.getMetadata().setFinalizers(new ArrayList<>(f)));
        return after;
    }

    /** The Pod as the API server would put it in an AdmissionReview: its JSON as maps and lists. */
    private static Object asMap(Pod pod) {
        return SERIALIZATION.unmarshal(SERIALIZATION.asJson(pod), Map.class);
    }

    private static String codesOf(String message) {
        List<String> codes = new ArrayList<>();
        String by = policyServed ? DENIED_BY : WEBHOOK_DENIED;
        Matcher m = CODE.matcher(message.substring(message.indexOf(by) + by.length()));
        while (m.find()) {
            codes.add(m.group(1));
        }
        return String.join(",", codes);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static void assertFrozenRecord(KubernetesClientException e, String pod, String change) {
        assertThat(e).as("the answer to an edit of " + INJECTED).isNotNull();
        assertThat(e.getCode()).isEqualTo(403);
        if (policyServed) {
            assertThat(e.getStatus().getReason()).isEqualTo("Forbidden");
        }
        assertThat(e.getStatus().getMessage())
                .startsWith(deniedPrefix(pod) + "frozen-record: annotation " + INJECTED
                        + " on Pod " + NAMESPACE + "/" + pod + " was " + change + ", ")
                .endsWith("change the kvcache annotations where the Pod is defined and let the Pod be replaced.");
    }

    /** The audit log's events about Pod {@code name} in the cases' namespace, at the ResponseComplete stage. */
    private static List<JsonNode> auditEvents(String name) {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> events = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(controlPlane.auditLog())) {
                JsonNode event = json.readTree(line);
                if (event.path("stage").asText().equals("ResponseComplete")
                        && event.path("objectRef").path("namespace").asText().equals(NAMESPACE)
                        && event.path("objectRef").path("name").asText().equals(name)) {
                    events.add(event);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return events;
    }

    private static Pod storedPod(String name) {
        Pod pod = admin.pods().inNamespace(NAMESPACE).withName(name).get();
        assertThat(pod).as("Pod %s/%s read back from the API server", NAMESPACE, name).isNotNull();
        return pod;
    }

    private static Pod mergePatch(String pod, String patch) {
        return admin.pods().inNamespace(NAMESPACE).withName(pod).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }

    private static MetricsSnapshot metrics() {
        return MetricsSnapshot.parse(controlPlane.get("/metrics"));
    }

    private static void printLogTails() {
        if (webhook != null) {
            System.out.println("e2e: ---- webhook log (last 40 lines)\n" + webhook.tail(40));
        }
        if (controlPlane != null) {
            System.out.println("e2e: " + controlPlane.logTails(30));
        }
    }
}
