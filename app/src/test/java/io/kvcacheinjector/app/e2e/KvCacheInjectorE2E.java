package io.kvcacheinjector.app.e2e;

import static io.kvcacheinjector.app.e2e.E2eObjects.CACHEBLEND_WEBHOOK;
import static io.kvcacheinjector.app.e2e.E2eObjects.CLIENT_CONFIG;
import static io.kvcacheinjector.app.e2e.E2eObjects.FREEZE_WEBHOOK;
import static io.kvcacheinjector.app.e2e.E2eObjects.FULLNAME;
import static io.kvcacheinjector.app.e2e.E2eObjects.HOLD;
import static io.kvcacheinjector.app.e2e.E2eObjects.INJECTED;
import static io.kvcacheinjector.app.e2e.E2eObjects.INJECT_WEBHOOK;
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
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The webhook against a real kube-apiserver and etcd: the chart installed by Helm with the webhooks at
 * {@code https://127.0.0.1:<port>}, the built jar serving with the chart ServiceAccount's token, and every case
 * driven through the API server with a fabric8 client, asserting what a user reads back from it.
 *
 * <p>Run with {@code .ci/e2e} or {@code bin/mvn -Pe2e -pl app -am verify -Dtest='*E2E'
 * -Dsurefire.failIfNoSpecifiedTests=false} ({@code docs/how-to/run-e2e.md}). Without Go and without
 * {@code KUBEBUILDER_ASSETS} (and no binaries already provisioned) it is skipped with one line saying why.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KvCacheInjectorE2E {
    private static final Duration WEBHOOK_EFFECTIVE = Duration.ofSeconds(30);
    private static final Duration INFORMER_PROPAGATION = Duration.ofSeconds(20);

    private static final Timings TIMINGS = new Timings();
    private static Path workDir;
    private static ControlPlane controlPlane;
    private static KubernetesClient admin;
    private static WebhookProcess webhook;
    private static MetricsSnapshot atStart;
    private static boolean failed;
    private static boolean skipped;
    private static long caseStart;
    private static long suiteStart;

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
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // a cold provisioning builds both binaries (about 3.5 min)
    static void startTheControlPlaneInstallTheChartAndServe() throws IOException {
        suiteStart = System.nanoTime();
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
        Path repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        Path jar = Path.of(System.getProperty("kvcache.e2e.jar", "target/kvcache-injector.jar")).toAbsolutePath();

        long t = System.nanoTime();
        ControlPlaneBinaries.Found found = ControlPlaneBinaries.locate(repo, System.getenv());
        if (found instanceof ControlPlaneBinaries.Unavailable unavailable) {
            skipped = true;
            System.out.println("e2e: SKIPPED: " + unavailable.reason());
            Assumptions.abort(unavailable.reason());
        }
        ControlPlaneBinaries.Available binaries = (ControlPlaneBinaries.Available) found;
        TIMINGS.add("provisioning kube-apiserver + etcd (" + binaries.source() + ": " + binaries.dir() + ")", since(t));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the built jar " + jar + " is missing; the e2e profile runs after"
                    + " `package` (bin/mvn -Pe2e -pl app -am verify), or build it with bin/mvn -pl app -am package"
                    + " -DskipTests");
        }

        workDir = Files.createTempDirectory("kvcache-e2e");
        controlPlane = ControlPlane.start(binaries.dir(), workDir);
        controlPlane.startup().marks().forEach(m -> TIMINGS.add("start-up: " + m.what(), m.took()));
        admin = controlPlane.adminClient();
        System.out.println("e2e: kube-apiserver " + admin.getKubernetesVersion().getGitVersion() + " at "
                + controlPlane.url() + ", work dir " + workDir);

        t = System.nanoTime();
        for (String ns : List.of(RELEASE_NAMESPACE, SETTINGS_NAMESPACE, NAMESPACE)) {
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
                    .create();
        }
        SelfSignedCertificate certificate = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
        int webhookPort = ControlPlane.freePorts(1)[0];
        String webhookUrl = "https://127.0.0.1:" + webhookPort;
        Release release = new Helm(chartDir(repo)).install().withName(RELEASE).withNamespace(RELEASE_NAMESPACE)
                .withKubeConfigContents(controlPlane.kubeconfig(ControlPlane.ADMIN_TOKEN, "e2e-admin"))
                .set("webhook.url", webhookUrl)
                .set("webhook.caBundle", Base64.getEncoder().encodeToString(
                        certificate.caPem().getBytes(StandardCharsets.US_ASCII)))
                .set("settings.namespace", SETTINGS_NAMESPACE)
                // this suite covers the freeze webhook; FreezePolicyE2E covers the policy that auto picks on 1.30+
                .set("freeze.mode", "webhook")
                .call();
        assertThat(release.getStatus()).as("helm install status").isEqualTo("deployed");
        awaitCrdsEstablished(admin);
        TIMINGS.add("start-up: helm install of the chart (CRDs, RBAC, webhooks at " + webhookUrl + ")", since(t));

        t = System.nanoTime();
        createExampleCluster(admin);
        String token = admin.serviceAccounts().inNamespace(RELEASE_NAMESPACE).withName(FULLNAME)
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
                .getStatus().getToken();
        TIMINGS.add("start-up: the example cluster objects and a token for ServiceAccount " + FULLNAME, since(t));

        t = System.nanoTime();
        webhook = WebhookProcess.start(jar, workDir.resolve("webhook"), certificate, webhookPort,
                controlPlane.kubeconfig(token, FULLNAME), RELEASE_NAMESPACE, SETTINGS_NAMESPACE);
        TIMINGS.add("start-up: java -jar kvcache-injector.jar serve until /readyz 200 (informers synced)", since(t));

        t = System.nanoTime();
        awaitMutatingWebhookEffective();
        TIMINGS.add("start-up: MutatingWebhookConfiguration in effect (dry-run marker Pods)", since(t));
        t = System.nanoTime();
        awaitValidatingWebhookEffective();
        TIMINGS.add("start-up: ValidatingWebhookConfiguration in effect (dry-run marker edits)", since(t));
        TIMINGS.add("start-up total (provisioning to webhooks in effect)", since(suiteStart));
        atStart = metrics();
    }

    @AfterAll
    static void stopEverything() {
        if (skipped) {
            return; // the one line is printed
        }
        try {
            if (controlPlane != null && atStart != null) {
                System.out.println("e2e: " + MetricsSnapshot.DURATION + " of our webhooks over the whole run"
                        + " (marker requests included), from the API server's /metrics:");
                printIndented(metrics().durationTable(Set.of(INJECT_WEBHOOK, FREEZE_WEBHOOK, CACHEBLEND_WEBHOOK),
                        MetricsSnapshot.parse("")));
            }
        } catch (RuntimeException e) {
            System.out.println("e2e: could not read the API server's metrics at the end: " + e.getMessage());
        }
        long t = System.nanoTime();
        if (webhook != null) {
            TIMINGS.add("shutdown: webhook (SIGTERM, graceful)", webhook.stop());
        }
        if (admin != null) {
            admin.close();
        }
        if (controlPlane != null) {
            controlPlane.stop().forEach((name, took) -> TIMINGS.add("shutdown: " + name, took));
        }
        if (workDir != null) {
            if (failed || Boolean.getBoolean("kvcache.e2e.keep")) {
                System.out.println("e2e: kept " + workDir + " (logs: kube-apiserver.log, etcd.log, webhook/webhook.log)");
            } else {
                deleteRecursively(workDir);
            }
        }
        if (suiteStart != 0) {
            TIMINGS.add("shutdown total", since(t));
            TIMINGS.add("suite total (provisioning, start-up, cases, shutdown)", since(suiteStart));
            System.out.println("e2e: timings on this machine (" + Runtime.getRuntime().availableProcessors()
                    + " cores):");
            System.out.print(TIMINGS.table());
        }
    }

    @BeforeEach
    void startClock() {
        caseStart = System.nanoTime();
    }

    @AfterEach
    void stopClock(TestInfo info) {
        TIMINGS.add("case: " + info.getTestMethod().map(m -> m.getName()).orElse(info.getDisplayName()),
                since(caseStart));
    }

    // ------------------------------------------------------------------------------------------------ cases

    @Test
    @Order(1)
    void aVllmPodIsStoredWithTheConnectorFlagTheDtypeTheProjectedFileAndTheRecord() {
        admin.pods().inNamespace(NAMESPACE).resource(E2eObjects.vllm("vllm-0", NAMESPACE, "chat")).create();

        Pod stored = storedPod("vllm-0");
        Container server = stored.getSpec().getContainers().getFirst();
        assertThat(server.getCommand()).containsExactly("vllm");
        assertThat(server.getArgs()).containsExactly("serve", "--model", "Qwen/Qwen3-8B",
                "--kv-transfer-config", "{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_consumer\"}",
                "--kv-cache-dtype", "bfloat16");
        assertThat(env(server)).containsExactly(
                Map.entry("MOONCAKE_CONFIG_PATH", "/etc/gpustack/kvcache/mooncake.json"),
                Map.entry("MC_TE_METRIC", "1"),
                Map.entry("MC_STORE_CLIENT_METRIC_BANDWIDTH", "1"));
        assertThat(server.getResources().getLimits().get("memory").toString()).isEqualTo("16Gi");
        assertProjectedConfigFile(stored, server);
        assertThat(stored.getMetadata().getAnnotations())
                .containsEntry(CLIENT_CONFIG, "{\"metadata_server\":\"P2PHANDSHAKE\",\"master_server_address\":"
                        + "\"mc-leader.kv.svc:50051\",\"protocol\":\"rdma\",\"device_name\":\"\",\"mode\":"
                        + "\"standalone-store\",\"global_segment_size\":0,\"local_buffer_size\":134217728,"
                        + "\"tenant_id\":\"team-a-chat\"}")
                .containsEntry(INJECTED, "{\"binding\":\"chat\",\"engine\":\"vllm\",\"vehicle\":\"file\",\"domain\":"
                        + "\"team-a-chat\",\"tenantInjected\":true,\"launchProgram\":\"vllm\","
                        + "\"launchArgsForwarded\":false}")
                .containsEntry("kvcache.gpustack.ai/role", "Decode");
    }

    @Test
    @Order(2)
    void aVllmAscendPodIsStoredWithTheAscendConnectorAndTheAscendTransport() {
        admin.pods().inNamespace(NAMESPACE).resource(E2eObjects.vllmAscend("ascend-0")).create();

        Pod stored = storedPod("ascend-0");
        Container server = stored.getSpec().getContainers().getFirst();
        assertThat(server.getArgs()).containsExactly("serve", "--model", "Qwen/Qwen3-8B",
                "--kv-transfer-config", "{\"kv_connector\":\"AscendStoreConnector\",\"kv_role\":\"kv_both\"}",
                "--kv-cache-dtype", "bfloat16");
        assertThat(env(server)).containsEntry("MOONCAKE_CONFIG_PATH", "/etc/gpustack/kvcache/mooncake.json");
        assertProjectedConfigFile(stored, server);
        assertThat(stored.getMetadata().getAnnotations())
                .containsEntry(CLIENT_CONFIG, "{\"metadata_server\":\"P2PHANDSHAKE\",\"master_server_address\":"
                        + "\"npu-leader.kv.svc:50051\",\"protocol\":\"ascend\",\"device_name\":\"\",\"mode\":"
                        + "\"standalone-store\",\"global_segment_size\":0,\"local_buffer_size\":134217728,"
                        + "\"tenant_id\":\"team-a-npu\"}")
                .containsEntry(INJECTED, "{\"binding\":\"npu\",\"engine\":\"vllm-ascend\",\"vehicle\":\"file\","
                        + "\"domain\":\"team-a-npu\",\"tenantInjected\":true,\"launchProgram\":\"vllm\","
                        + "\"launchArgsForwarded\":false}");
    }

    @Test
    @Order(3)
    void anSglangPodIsStoredWithTheMooncakeVariablesTheStorageBackendAndNoFile() {
        admin.pods().inNamespace(NAMESPACE).resource(E2eObjects.sglang("sglang-0")).create();

        Pod stored = storedPod("sglang-0");
        Container server = stored.getSpec().getContainers().getFirst();
        assertThat(server.getCommand()).containsExactly("python3", "-m", "sglang.launch_server");
        assertThat(server.getArgs()).containsExactly("--model-path", "Qwen/Qwen3-8B",
                "--hicache-storage-backend", "mooncake", "--kv-cache-dtype", "bfloat16",
                "--enable-hierarchical-cache");
        assertThat(env(server)).containsExactly(
                Map.entry("HF_HOME", "/cache"),
                Map.entry("MOONCAKE_TENANT_ID", "team-a-chat"),
                Map.entry("MOONCAKE_MASTER", "mc-leader.kv.svc:50051"),
                Map.entry("MOONCAKE_TE_META_DATA_SERVER", "P2PHANDSHAKE"),
                Map.entry("MOONCAKE_PROTOCOL", "rdma"),
                Map.entry("MOONCAKE_DEVICE", ""),
                Map.entry("MOONCAKE_GLOBAL_SEGMENT_SIZE", "0"),
                Map.entry("MOONCAKE_LOCAL_HOSTNAME", "fieldRef:status.podIP"),
                Map.entry("MC_TE_METRIC", "1"),
                Map.entry("MC_STORE_CLIENT_METRIC_BANDWIDTH", "1"));
        assertThat(stored.getSpec().getVolumes()).noneMatch(v -> v.getName().equals("gpustack-kvcache-config"));
        assertThat(server.getVolumeMounts()).isNullOrEmpty();
        assertThat(stored.getMetadata().getAnnotations())
                .doesNotContainKey(CLIENT_CONFIG)
                .containsEntry(INJECTED, "{\"binding\":\"chat\",\"engine\":\"sglang\",\"vehicle\":\"environment\","
                        + "\"domain\":\"team-a-chat\",\"tenantInjected\":true,\"launchProgram\":\"python3\","
                        + "\"launchArgsForwarded\":false}");
    }

    @Test
    @Order(4)
    void aRefusalReachesTheClientAs403WithOurCodeAndFixAndNothingIsStored() {
        KubernetesClientException refused = catchThrowableOfType(KubernetesClientException.class,
                () -> admin.pods().inNamespace(NAMESPACE).resource(E2eObjects.shellWrapped("wrapped-0")).create());

        assertThat(refused).as("the API server's answer to a Pod whose shell -c would swallow the flags").isNotNull();
        assertThat(refused.getCode()).isEqualTo(403);
        assertThat(refused.getStatus().getReason()).isEqualTo("Forbidden");
        assertThat(refused.getStatus().getMessage())
                .startsWith("admission webhook \"" + INJECT_WEBHOOK + "\" denied the request: launch-shell-c: ")
                .contains("container \"server\"", "the shell \"sh\" with \"-c\"", "vllm serve")
                .contains("Launch the engine directly");
        assertThat(admin.pods().inNamespace(NAMESPACE).withName("wrapped-0").get()).as("the refused Pod").isNull();
    }

    @Test
    @Order(5)
    void aPodWithoutTheLabelAndAnOptedInPodInTheWebhooksOwnNamespaceAreStoredUntouchedWithoutCallingUs() {
        double callsBefore = metrics().admissions(INJECT_WEBHOOK, "", "");

        admin.pods().inNamespace(NAMESPACE).resource(E2eObjects.notOptedIn("plain-0")).create();
        admin.pods().inNamespace(RELEASE_NAMESPACE)
                .resource(E2eObjects.vllm("own-namespace-0", RELEASE_NAMESPACE, "chat")).create();

        Pod inOwnNamespace = admin.pods().inNamespace(RELEASE_NAMESPACE).withName("own-namespace-0").get();
        assertThat(inOwnNamespace).as("Pod %s/own-namespace-0", RELEASE_NAMESPACE).isNotNull();
        for (Pod stored : List.of(storedPod("plain-0"), inOwnNamespace)) {
            Container server = stored.getSpec().getContainers().getFirst();
            assertThat(server.getArgs()).as(stored.getMetadata().getName())
                    .containsExactly("serve", "--model", "Qwen/Qwen3-8B");
            assertThat(server.getEnv()).as(stored.getMetadata().getName()).isNullOrEmpty();
            assertThat(server.getVolumeMounts()).as(stored.getMetadata().getName()).isNullOrEmpty();
            assertThat(stored.getSpec().getVolumes()).as(stored.getMetadata().getName()).isNullOrEmpty();
            assertThat(stored.getMetadata().getAnnotations()).as(stored.getMetadata().getName())
                    .doesNotContainKeys(INJECTED, CLIENT_CONFIG);
        }
        assertThat(metrics().admissions(INJECT_WEBHOOK, "", ""))
                .as("admissions of %s: the object and namespace selectors keep both Pods away from it", INJECT_WEBHOOK)
                .isEqualTo(callsBefore);
    }

    @Test
    @Order(6)
    void aServerSideDryRunCreateIsAnsweredInjectedAndNothingIsStored() {
        Pod answered = admin.pods().inNamespace(NAMESPACE).resource(E2eObjects.vllm("dry-0", NAMESPACE, "chat"))
                .dryRun().create();

        assertThat(answered.getMetadata().getAnnotations()).containsKey(INJECTED).containsKey(CLIENT_CONFIG);
        assertThat(answered.getSpec().getContainers().getFirst().getArgs()).contains("--kv-transfer-config");
        assertThat(admin.pods().inNamespace(NAMESPACE).withName("dry-0").get()).as("the dry-run Pod").isNull();
    }

    @Test
    @Order(7)
    void theFreezeRejectsAnEditOfTheRecordAlsoWhileTerminatingAndAdmitsTheFinalizerRemoval() {
        Pod held = E2eObjects.vllm("freeze-0", NAMESPACE, "chat");
        held.getMetadata().setFinalizers(List.of(HOLD));
        admin.pods().inNamespace(NAMESPACE).resource(held).create();
        String record = storedPod("freeze-0").getMetadata().getAnnotations().get(INJECTED);
        assertThat(record).contains("\"binding\":\"chat\"");

        KubernetesClientException edit = catchThrowableOfType(KubernetesClientException.class,
                () -> mergePatch("freeze-0", "{\"metadata\":{\"annotations\":{\"" + INJECTED + "\":\"{}\"}}}"));
        assertFrozenRecord(edit, "freeze-0");
        assertThat(storedPod("freeze-0").getMetadata().getAnnotations()).containsEntry(INJECTED, record);

        admin.pods().inNamespace(NAMESPACE).withName("freeze-0").delete();
        Pod terminating = storedPod("freeze-0");
        assertThat(terminating.getMetadata().getDeletionTimestamp()).as("deletionTimestamp").isNotBlank();

        KubernetesClientException editWhileTerminating = catchThrowableOfType(KubernetesClientException.class,
                () -> mergePatch("freeze-0", "{\"metadata\":{\"annotations\":{\"" + INJECTED + "\":null}}}"));
        assertFrozenRecord(editWhileTerminating, "freeze-0");

        double admittedUpdates = metrics().admissions(FREEZE_WEBHOOK, "UPDATE", "false");
        mergePatch("freeze-0", "{\"metadata\":{\"finalizers\":null}}");
        await("the Pod to be gone once its finalizer is removed", Duration.ofSeconds(10),
                () -> admin.pods().inNamespace(NAMESPACE).withName("freeze-0").get() == null);
        assertThat(metrics().admissions(FREEZE_WEBHOOK, "UPDATE", "false"))
                .as("UPDATEs %s admitted: the finalizer removal was reviewed and admitted", FREEZE_WEBHOOK)
                .isEqualTo(admittedUpdates + 1);
    }

    @Test
    @Order(8)
    void aBindingDeletedWithAFinalizerIsSeenAsTerminatingAndOnceGoneAsNotFound() {
        admin.resource(E2eObjects.binding("leaving", "shared", "team-a-leaving", true)).create();
        Pod pod = E2eObjects.vllm("on-leaving-0", NAMESPACE, "leaving");
        Pod admitted = admin.pods().inNamespace(NAMESPACE).resource(pod).dryRun().create();
        assertThat(admitted.getMetadata().getAnnotations().get(INJECTED)).contains("\"domain\":\"team-a-leaving\"");

        admin.resource(E2eObjects.binding("leaving", "shared", "team-a-leaving", true)).delete();
        GenericKubernetesResource binding = admin.genericKubernetesResources("worker.gpustack.ai/v1alpha1",
                "KVCachePoolBinding").inNamespace(NAMESPACE).withName("leaving").get();
        assertThat(binding.getMetadata().getDeletionTimestamp()).as("the Binding's deletionTimestamp").isNotBlank();

        long t = System.nanoTime();
        KubernetesClientException terminating = awaitRefusal(pod, "binding-terminating");
        TIMINGS.add("  the deletionTimestamp reached the webhook's informer", since(t));
        assertThat(terminating.getCode()).isEqualTo(403);
        assertThat(terminating.getStatus().getMessage())
                .contains("binding-terminating: KVCachePoolBinding \"team-a/leaving\" is being deleted")
                .contains("wait for the deletion to finish and create a new Binding, or name a Binding that is not"
                        + " being deleted");

        admin.resource(binding).edit(b -> {
            b.getMetadata().setFinalizers(List.of());
            return b;
        });
        KubernetesClientException gone = awaitRefusal(pod, "binding-not-found");
        assertThat(gone.getStatus().getMessage())
                .contains("KVCachePoolBinding \"team-a/leaving\" (named by kvcache.gpustack.ai/binding) does not exist");
    }

    @Test
    @Order(9)
    void theApiServerTimesOurWebhooksInItsAdmissionDurationMetric() {
        MetricsSnapshot before = metrics();
        admin.pods().inNamespace(NAMESPACE).resource(E2eObjects.sglang("measured-0")).dryRun().create();
        assertThatThrownBy(() -> admin.pods().inNamespace(NAMESPACE)
                .resource(E2eObjects.shellWrapped("measured-1")).dryRun().create())
                .isInstanceOf(KubernetesClientException.class).hasMessageContaining("launch-shell-c");
        MetricsSnapshot after = metrics();

        assertThat(after.admissions(INJECT_WEBHOOK, "CREATE", "false") - before.admissions(INJECT_WEBHOOK, "CREATE", "false"))
                .as("admitted CREATEs timed for %s", INJECT_WEBHOOK).isEqualTo(1);
        assertThat(after.admissions(INJECT_WEBHOOK, "CREATE", "true") - before.admissions(INJECT_WEBHOOK, "CREATE", "true"))
                .as("rejected CREATEs timed for %s", INJECT_WEBHOOK).isEqualTo(1);
        assertThat(after.total(MetricsSnapshot.DURATION + "_sum", Map.of("name", INJECT_WEBHOOK)))
                .isGreaterThan(before.total(MetricsSnapshot.DURATION + "_sum", Map.of("name", INJECT_WEBHOOK)));

        System.out.println("e2e: " + MetricsSnapshot.DURATION + " of our webhooks for the cases so far (after the"
                + " start-up markers), from the API server's /metrics:");
        printIndented(after.durationTable(Set.of(INJECT_WEBHOOK, FREEZE_WEBHOOK, CACHEBLEND_WEBHOOK), atStart));
        System.out.println("e2e: the webhook's own count (its /metrics):");
        webhook.metrics().lines().filter(l -> l.startsWith("kvcache_injector_admissions_total"))
                .forEach(l -> System.out.println("e2e:   " + l));
    }

    @Test
    @Order(10)
    void withTheWebhookStoppedAnOptedInCreateFailsClosedAndTheFreezeFailsOpen() {
        admin.pods().inNamespace(NAMESPACE).resource(E2eObjects.vllm("before-stop-0", NAMESPACE, "chat")).create();
        assertThat(storedPod("before-stop-0").getMetadata().getAnnotations()).containsKey(INJECTED);
        MetricsSnapshot before = metrics();

        TIMINGS.add("  webhook stopped (SIGTERM, graceful)", webhook.stop());
        assertThat(webhook.alive()).isFalse();
        assertThat(webhook.exitValue()).as("serve's exit status after SIGTERM (a graceful stop)").isZero();

        KubernetesClientException closed = catchThrowableOfType(KubernetesClientException.class,
                () -> admin.pods().inNamespace(NAMESPACE).resource(E2eObjects.vllm("while-down-0", NAMESPACE, "chat"))
                        .create());
        assertThat(closed).as("creating an opted-in Pod while the webhook is down").isNotNull();
        System.out.println("e2e: while down, the API server answered " + closed.getCode() + ": "
                + closed.getStatus().getMessage());
        assertThat(closed.getStatus().getMessage())
                .contains("failed calling webhook \"" + INJECT_WEBHOOK + "\"")
                .contains(webhook.url() + "/kvcache/mutate");
        assertThat(admin.pods().inNamespace(NAMESPACE).withName("while-down-0").get()).as("the Pod").isNull();

        mergePatch("before-stop-0", "{\"metadata\":{\"annotations\":{\"" + INJECTED + "\":\"edited while down\"}}}");
        assertThat(storedPod("before-stop-0").getMetadata().getAnnotations())
                .as("the record, edited while the freeze could not be asked")
                .containsEntry(INJECTED, "edited while down");
        assertThat(metrics().total(MetricsSnapshot.FAIL_OPEN, Map.of("name", FREEZE_WEBHOOK))
                - before.total(MetricsSnapshot.FAIL_OPEN, Map.of("name", FREEZE_WEBHOOK)))
                .as("%s for %s", MetricsSnapshot.FAIL_OPEN, FREEZE_WEBHOOK).isEqualTo(1);

        admin.pods().inNamespace(NAMESPACE).resource(E2eObjects.notOptedIn("plain-while-down-0")).create();
        assertThat(storedPod("plain-while-down-0")).as("a Pod that does not opt in, while the webhook is down")
                .isNotNull();
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Dry-run creates of an opted-in Pod until the answer carries the record (upstream's marker requests). */
    private static void awaitMutatingWebhookEffective() {
        Pod marker = E2eObjects.vllm("marker-0", NAMESPACE, "chat");
        await("the MutatingWebhookConfiguration to take effect", WEBHOOK_EFFECTIVE, () -> {
            Pod answered = admin.pods().inNamespace(NAMESPACE).resource(marker).dryRun().create();
            return answered.getMetadata().getAnnotations().containsKey(INJECTED);
        });
        MutatingWebhookConfiguration mutating = admin.admissionRegistration().v1().mutatingWebhookConfigurations()
                .withName(FULLNAME).get();
        ValidatingWebhookConfiguration validating = admin.admissionRegistration().v1()
                .validatingWebhookConfigurations().withName(FULLNAME).get();
        System.out.println("e2e: registered " + Stream.concat(
                mutating.getWebhooks().stream().map(w -> w.getName() + " -> " + w.getClientConfig().getUrl()
                        + " (failurePolicy " + w.getFailurePolicy() + ")"),
                validating.getWebhooks().stream().map(w -> w.getName() + " -> " + w.getClientConfig().getUrl()
                        + " (failurePolicy " + w.getFailurePolicy() + ")")).toList());
    }

    /** A persisted opted-in Pod, and dry-run edits of its record until the freeze refuses them. */
    private static void awaitValidatingWebhookEffective() {
        admin.pods().inNamespace(NAMESPACE).resource(E2eObjects.vllm("marker-freeze-0", NAMESPACE, "chat")).create();
        await("the ValidatingWebhookConfiguration to take effect", WEBHOOK_EFFECTIVE, () -> {
            try {
                admin.pods().inNamespace(NAMESPACE).withName("marker-freeze-0").dryRun()
                        .patch(PatchContext.of(PatchType.JSON_MERGE),
                                "{\"metadata\":{\"annotations\":{\"" + INJECTED + "\":\"{}\"}}}");
                return false;
            } catch (KubernetesClientException e) {
                if (e.getCode() == 403 && e.getMessage().contains("frozen-record")) {
                    return true;
                }
                throw e;
            }
        });
    }

    private static KubernetesClientException awaitRefusal(Pod pod, String code) {
        KubernetesClientException[] last = new KubernetesClientException[1];
        await("a dry-run create of " + pod.getMetadata().getName() + " to be refused with " + code,
                INFORMER_PROPAGATION, () -> {
                    try {
                        admin.pods().inNamespace(NAMESPACE).resource(pod).dryRun().create();
                        return false;
                    } catch (KubernetesClientException e) {
                        last[0] = e;
                        return e.getCode() == 403 && e.getStatus().getMessage().contains(": " + code + ": ");
                    }
                });
        return last[0];
    }

    private static void assertFrozenRecord(KubernetesClientException e, String pod) {
        assertThat(e).as("the answer to an edit of " + INJECTED).isNotNull();
        assertThat(e.getCode()).isEqualTo(403);
        assertThat(e.getStatus().getMessage())
                .startsWith("admission webhook \"" + FREEZE_WEBHOOK + "\" denied the request: frozen-record: ")
                .contains("annotation " + INJECTED + " on Pod " + NAMESPACE + "/" + pod)
                .contains("let the Pod be replaced");
    }

    private static void assertProjectedConfigFile(Pod stored, Container server) {
        assertThat(server.getVolumeMounts()).singleElement().satisfies(m -> {
            assertThat(m.getName()).isEqualTo("gpustack-kvcache-config");
            assertThat(m.getMountPath()).isEqualTo("/etc/gpustack/kvcache");
            assertThat(m.getReadOnly()).isTrue();
        });
        Volume volume = stored.getSpec().getVolumes().stream()
                .filter(v -> v.getName().equals("gpustack-kvcache-config")).findFirst().orElseThrow();
        assertThat(volume.getDownwardAPI().getItems()).singleElement().satisfies(item -> {
            assertThat(item.getPath()).isEqualTo("mooncake.json");
            assertThat(item.getFieldRef().getFieldPath())
                    .isEqualTo("metadata.annotations['kvcache.gpustack.ai/client-config']");
        });
    }

    private static Pod storedPod(String name) {
        Pod pod = admin.pods().inNamespace(NAMESPACE).withName(name).get();
        assertThat(pod).as("Pod %s/%s read back from the API server", NAMESPACE, name).isNotNull();
        return pod;
    }

    private static Pod mergePatch(String pod, String patch) {
        return admin.pods().inNamespace(NAMESPACE).withName(pod).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }

    /** Env as name → value, a {@code valueFrom.fieldRef} shown as {@code fieldRef:<path>}, in order. */
    private static Map<String, String> env(Container c) {
        Map<String, String> env = new LinkedHashMap<>();
        for (EnvVar v : c.getEnv()) {
            env.put(v.getName(), v.getValueFrom() != null && v.getValueFrom().getFieldRef() != null
                    ? "fieldRef:" + v.getValueFrom().getFieldRef().getFieldPath()
                    : v.getValue() == null ? "" : v.getValue());
        }
        return env;
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

    private static void printIndented(String table) {
        table.lines().forEach(line -> System.out.println("e2e:   " + line));
    }
}
