package io.kvcacheinjector.app.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import java.io.IOException;
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
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The CacheBlend install as the guide (docs/how-to/cacheblend.md) runs it, against a real kube-apiserver: the chart
 * installed by Helm with docs/examples/cacheblend/my-values.yaml (webhooks at a loopback {@code webhook.url}), two
 * {@code serve --reconcile-cacheblend} replicas outside the cluster with the chart ServiceAccount's token. The leader
 * creates the engine's DaemonSet, Services, ConfigMap and status; an opted-in vLLM Pod in
 * {@code cacheblend-workload} referencing {@code <release-ns>/<name>} is stored injected; a hand edit of the
 * ConfigMap is reverted; once the engine is deleted, a new Pod is stored visibly skipped.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CacheBlendInstallE2E {
    private static final String RELEASE = "tensormesh-operator";
    private static final String RELEASE_NAMESPACE = "tensormesh-operator";
    private static final String FULLNAME = RELEASE + "-kvcache-injector";
    private static final String WORKLOAD = "cacheblend-workload";
    private static final String ENGINE = "tensormesh-cacheblend";
    private static final String CONNECTION = ENGINE + "-connection";
    private static final String LEASE = "kvcache-injector-cacheblend";

    private static Path workDir;
    private static ControlPlane controlPlane;
    private static KubernetesClient admin;
    private static final List<WebhookProcess> replicas = new ArrayList<>();
    private static boolean failed;

    @BeforeAll
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    static void installTheChartWithTheGuidesValuesAndServeTwoReplicas() throws IOException {
        Path repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        Path jar = Path.of(System.getProperty("kvcache.e2e.jar", "target/kvcache-injector.jar")).toAbsolutePath();
        ControlPlaneBinaries.Found found = ControlPlaneBinaries.locate(repo, System.getenv());
        if (found instanceof ControlPlaneBinaries.Unavailable unavailable) {
            System.out.println("e2e: SKIPPED: " + unavailable.reason());
            Assumptions.abort(unavailable.reason());
        }
        try {
            workDir = Files.createTempDirectory("kvcache-e2e-cacheblend");
            controlPlane = ControlPlane.start(((ControlPlaneBinaries.Available) found).dir(), workDir);
            admin = controlPlane.adminClient();
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(RELEASE_NAMESPACE)
                    .endMetadata().build()).create();
            // the guide's workload namespace: PSS-privileged, with the plugin's pull secret
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(WORKLOAD)
                    .addToLabels("pod-security.kubernetes.io/enforce", "privileged").endMetadata().build()).create();
            admin.secrets().inNamespace(WORKLOAD).resource(new SecretBuilder().withNewMetadata()
                    .withName("cacheblend-plugin-pull").endMetadata().withType("kubernetes.io/dockerconfigjson")
                    .addToStringData(".dockerconfigjson", "{\"auths\":{}}").build()).create();

            SelfSignedCertificate certificate = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
            int[] ports = ControlPlane.freePorts(2);
            Release release = new Helm(repo.resolve("deploy/helm/kvcache-injector")).install().withName(RELEASE)
                    .withNamespace(RELEASE_NAMESPACE)
                    .withKubeConfigContents(controlPlane.kubeconfig(ControlPlane.ADMIN_TOKEN, "e2e-admin"))
                    .withValuesFile(repo.resolve("docs/examples/cacheblend/my-values.yaml"))
                    .set("webhook.url", "https://127.0.0.1:" + ports[0])
                    .set("webhook.caBundle", Base64.getEncoder().encodeToString(
                            certificate.caPem().getBytes(StandardCharsets.US_ASCII)))
                    .set("settings.namespace", RELEASE_NAMESPACE)
                    .call();
            assertThat(release.getStatus()).as("helm install status").isEqualTo("deployed");

            String token = admin.serviceAccounts().inNamespace(RELEASE_NAMESPACE).withName(FULLNAME)
                    .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec()
                            .build()).getStatus().getToken();
            List<String> chartArgs = chartCacheBlendArgs();
            for (int i = 0; i < 2; i++) {
                String name = "replica-" + (char) ('a' + i);
                replicas.add(WebhookProcess.start(jar, workDir.resolve(name), certificate, ports[i],
                        controlPlane.kubeconfig(token, FULLNAME), RELEASE_NAMESPACE, RELEASE_NAMESPACE, chartArgs,
                        Map.of("POD_NAME", name)));
            }
        } catch (IOException | RuntimeException | Error e) {
            failed = true;
            printTails();
            throw e;
        }
    }

    /** The CacheBlend flags the chart's Deployment passes (allow-list, controller), read from the installed chart. */
    private static List<String> chartCacheBlendArgs() {
        List<String> args = admin.apps().deployments().inNamespace(RELEASE_NAMESPACE).withName(FULLNAME).get()
                .getSpec().getTemplate().getSpec().getContainers().getFirst().getArgs();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).equals("--cacheblend-allowed-namespaces")) {
                out.add(args.get(i));
                out.add(args.get(++i));
            } else if (args.get(i).equals("--reconcile-cacheblend")) {
                out.add(args.get(i));
            }
        }
        assertThat(out).as("the chart's CacheBlend flags").containsExactly("--cacheblend-allowed-namespaces",
                RELEASE_NAMESPACE, "--reconcile-cacheblend");
        return out;
    }

    @AfterAll
    static void stopEverything() {
        if (failed) {
            printTails();
        }
        replicas.forEach(WebhookProcess::stop);
        if (admin != null) {
            admin.close();
        }
        if (controlPlane != null) {
            controlPlane.close();
        }
    }

    private static void printTails() {
        for (int i = 0; i < replicas.size(); i++) {
            System.out.println("e2e: replica " + i + " log tail:\n" + replicas.get(i).tail(30));
        }
    }

    private static void await(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                failed = true;
                throw new AssertionError("gave up waiting for: " + what);
            }
            ControlPlane.sleep(200);
        }
    }

    private static GenericKubernetesResource engine() {
        return admin.genericKubernetesResources("lmcache.lmcache.ai/v1alpha1", "CacheBlendEngine")
                .inNamespace(RELEASE_NAMESPACE).withName(ENGINE).get();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> engineStatus() {
        GenericKubernetesResource e = engine();
        return e == null ? Map.of() : (Map<String, Object>) e.getAdditionalProperties().getOrDefault("status", Map.of());
    }

    private static Pod vllm(String name) {
        return E2eObjects.pod("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s
                  labels:
                    lmcache.ai/cacheblend-inject: "true"
                  annotations:
                    lmcache.ai/cacheblend-engine: "%s/%s"
                spec:
                  containers:
                    - name: vllm
                      image: lmcache/vllm-openai:v0.5.3
                      args: ["Qwen/Qwen3-8B", "--port", "8000"]
                """.formatted(name, WORKLOAD, RELEASE_NAMESPACE, ENGINE));
    }

    /** Creates {@code pod} with a plain HTTPS request (admin token) and returns the API server's warnings. */
    private static List<String> createReadingWarnings(Pod pod) {
        try {
            java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
                    .sslContext(ControlPlane.trusting(controlPlane.caPem())).build();
            java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create(controlPlane.url() + "/api/v1/namespaces/" + WORKLOAD + "/pods"))
                    .header("Authorization", "Bearer " + ControlPlane.ADMIN_TOKEN)
                    .header("Content-Type", "application/json")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                            admin.getKubernetesSerialization().asJson(pod)))
                    .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as("create %s: %s", pod.getMetadata().getName(), r.body()).isEqualTo(201);
            return r.headers().allValues("Warning");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    @Order(1)
    void theLeaderCreatesTheEnginesOwnedChildrenAndStatus() {
        await("the connection ConfigMap " + CONNECTION,
                () -> admin.configMaps().inNamespace(RELEASE_NAMESPACE).withName(CONNECTION).get() != null);
        await("the engine's status", () -> "Pending".equals(engineStatus().get("phase")));
        assertThat(engineStatus().get("conditions").toString()).contains("type=ConfigValid", "status=True");
        assertThat(engineStatus()).containsEntry("desiredInstances", 0).containsEntry("readyInstances", 0)
                .containsKey("observedGeneration");

        String uid = engine().getMetadata().getUid();
        List<HasMetadata> children = List.of(
                admin.apps().daemonSets().inNamespace(RELEASE_NAMESPACE).withName(ENGINE).get(),
                admin.services().inNamespace(RELEASE_NAMESPACE).withName(ENGINE).get(),
                admin.services().inNamespace(RELEASE_NAMESPACE).withName(ENGINE + "-metrics").get(),
                admin.configMaps().inNamespace(RELEASE_NAMESPACE).withName(CONNECTION).get());
        assertThat(children).allSatisfy(c -> assertThat(c.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(o -> {
                    assertThat(o.getUid()).isEqualTo(uid);
                    assertThat(o.getController()).isTrue();
                }));
        Container server = admin.apps().daemonSets().inNamespace(RELEASE_NAMESPACE).withName(ENGINE).get().getSpec()
                .getTemplate().getSpec().getContainers().getFirst();
        assertThat(server.getImage()).isEqualTo("lmcache/vllm-openai:v0.5.3");
        assertThat(server.getCommand()).containsExactly("lmcache", "server");
        assertThat(server.getArgs()).containsSubsequence("--l1-size-gb", "200");
        assertThat(admin.services().inNamespace(RELEASE_NAMESPACE).withName(ENGINE).get().getSpec()
                .getInternalTrafficPolicy()).isEqualTo("Local");
    }

    @Test
    @Order(2)
    void twoReplicasElectOneLeader() {
        await("a leader", () -> {
            Lease l = admin.leases().inNamespace(RELEASE_NAMESPACE).withName(LEASE).get();
            return l != null && l.getSpec().getHolderIdentity() != null;
        });
        String leader = admin.leases().inNamespace(RELEASE_NAMESPACE).withName(LEASE).get().getSpec()
                .getHolderIdentity();
        assertThat(leader).isIn("replica-a", "replica-b");
        List<String> leading = replicas.stream().filter(r -> r.log().contains("cacheblend controller: leading"))
                .map(r -> r.log().contains("replica-a)") ? "replica-a" : "replica-b").toList();
        assertThat(leading).containsExactly(leader);
        assertThat(replicas).allSatisfy(r -> assertThat(r.alive()).isTrue());
    }

    @Test
    @Order(3)
    void anOptedInPodInTheWorkloadNamespaceIsStoredInjected() {
        String kvConfig = admin.configMaps().inNamespace(RELEASE_NAMESPACE).withName(CONNECTION).get().getData()
                .get("kv-transfer-config.json");
        await("the CacheBlend webhook in effect and the engine in its view", () -> "true".equals(
                admin.pods().inNamespace(WORKLOAD).resource(vllm("marker")).dryRun().create().getMetadata()
                        .getAnnotations().get("lmcache.ai/cacheblend-injected")));
        admin.pods().inNamespace(WORKLOAD).resource(vllm("vllm-0")).create();
        Pod stored = admin.pods().inNamespace(WORKLOAD).withName("vllm-0").get();
        assertThat(stored.getMetadata().getAnnotations()).containsEntry("lmcache.ai/cacheblend-injected", "true")
                .doesNotContainKey("lmcache.ai/cacheblend-skip-reason");
        assertThat(stored.getSpec().getInitContainers()).extracting(Container::getName).containsExactly("cb-plugin-stage");
        assertThat(stored.getSpec().getInitContainers().getFirst().getImage())
                .isEqualTo("tensormesh/cacheblend-plugin:v0.5.3");
        assertThat(stored.getSpec().getHostIPC()).isTrue();
        assertThat(stored.getSpec().getImagePullSecrets()).extracting(LocalObjectReference::getName)
                .containsExactly("cacheblend-plugin-pull");
        assertThat(stored.getSpec().getContainers().getFirst().getArgs())
                .containsSubsequence("--attention-backend", "CUSTOM")
                .containsSubsequence("--kv-transfer-config", kvConfig);
    }

    @Test
    @Order(4)
    void aHandEditOfTheConfigMapIsReverted() {
        ConfigMap before = admin.configMaps().inNamespace(RELEASE_NAMESPACE).withName(CONNECTION).get();
        String written = before.getData().get("kv-transfer-config.json");
        admin.configMaps().inNamespace(RELEASE_NAMESPACE).withName(CONNECTION).edit(c -> {
            c.getData().put("kv-transfer-config.json", "{\"kv_connector\": \"SomethingElse\"}");
            return c;
        });
        await("the hand edit reverted", () -> written.equals(admin.configMaps().inNamespace(RELEASE_NAMESPACE)
                .withName(CONNECTION).get().getData().get("kv-transfer-config.json")));
    }

    @Test
    @Order(5)
    void afterTheEngineIsDeletedANewPodIsVisiblySkipped() {
        List<OwnerReference> owners = admin.configMaps().inNamespace(RELEASE_NAMESPACE).withName(CONNECTION).get()
                .getMetadata().getOwnerReferences();
        admin.genericKubernetesResources("lmcache.lmcache.ai/v1alpha1", "CacheBlendEngine")
                .inNamespace(RELEASE_NAMESPACE).withName(ENGINE).delete();
        await("the engine gone", () -> engine() == null);
        // no kube-controller-manager here: the garbage collector would delete the children through these
        assertThat(owners).singleElement().satisfies(o -> assertThat(o.getBlockOwnerDeletion()).isTrue());
        await("the webhook's view without the engine", () -> "engine-not-found".equals(
                admin.pods().inNamespace(WORKLOAD).resource(vllm("marker-skip")).dryRun().create().getMetadata()
                        .getAnnotations().get("lmcache.ai/cacheblend-skip-reason")));
        // what kubectl apply prints: the API server's Warning header carries the webhook's warning
        List<String> warnings = createReadingWarnings(vllm("vllm-1"));
        assertThat(warnings).anySatisfy(w -> assertThat(w).contains("engine-not-found")
                .contains(RELEASE_NAMESPACE + "/" + ENGINE));
        Pod stored = admin.pods().inNamespace(WORKLOAD).withName("vllm-1").get();
        assertThat(stored.getMetadata().getAnnotations()).containsEntry("lmcache.ai/cacheblend-skip-reason",
                "engine-not-found").doesNotContainKey("lmcache.ai/cacheblend-injected");
        assertThat(stored.getSpec().getInitContainers()).isNullOrEmpty();
        assertThat(stored.getSpec().getHostIPC()).isNotEqualTo(Boolean.TRUE);
    }
}
