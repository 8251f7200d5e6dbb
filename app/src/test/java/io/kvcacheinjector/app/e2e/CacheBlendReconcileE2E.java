package io.kvcacheinjector.app.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvcacheinjector.adapters.k8s.reconcile.CacheBlendOperator;
import io.kvcacheinjector.adapters.k8s.reconcile.Fabric8EngineChildren;
import io.kvcacheinjector.ports.service.CacheBlendEngineReconciler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The CacheBlendEngine controller (Java Operator SDK, server-side apply) against a real kube-apiserver, without the
 * chart: two controllers compete for one Lease and one leads; an engine gets its owned children and status; a hand
 * edit of the ConfigMap is reverted; an invalid engine is {@code Failed} with no child. The whole install through the
 * chart and {@code serve} is {@link CacheBlendInstallE2E}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CacheBlendReconcileE2E {
    private static final String NS = "tensormesh-operator";
    private static final String LEASE = "kvcache-injector-cacheblend";
    private static Path workDir;
    private static ControlPlane controlPlane;
    private static KubernetesClient admin;
    private static final List<CacheBlendOperator> operators = new ArrayList<>();
    /** Each replica's client: the operator leaves it open (serve shares it with the cluster view). */
    private static final List<KubernetesClient> clients = new ArrayList<>();
    private static final List<String> log = new CopyOnWriteArrayList<>();

    @BeforeAll
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    static void start() throws IOException {
        Path repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        ControlPlaneBinaries.Found found = ControlPlaneBinaries.locate(repo, System.getenv());
        if (found instanceof ControlPlaneBinaries.Unavailable unavailable) {
            System.out.println("e2e: SKIPPED: " + unavailable.reason());
            Assumptions.abort(unavailable.reason());
        }
        workDir = Files.createTempDirectory("kvcache-e2e-reconcile");
        controlPlane = ControlPlane.start(((ControlPlaneBinaries.Available) found).dir(), workDir);
        admin = controlPlane.adminClient();
        CustomResourceDefinition crd = admin.getKubernetesSerialization().unmarshal(Files.readString(
                repo.resolve("deploy/crds/lmcache.lmcache.ai_cacheblendengines.yaml")), CustomResourceDefinition.class);
        admin.apiextensions().v1().customResourceDefinitions().resource(crd).create();
        admin.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
                .waitUntilCondition(E2eSupport::established, 60, TimeUnit.SECONDS);
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
                .create();
        for (String identity : List.of("replica-a", "replica-b")) {
            KubernetesClient client = controlPlane.adminClient();
            clients.add(client);
            operators.add(CacheBlendOperator.start(client,
                    new CacheBlendEngineReconciler(new Fabric8EngineChildren(client), Clock.systemUTC()),
                    LEASE, NS, identity, line -> log.add(identity + ": " + line),
                    () -> log.add(identity + ": LOST")));
        }
    }

    @AfterAll
    static void stop() {
        operators.forEach(CacheBlendOperator::close);
        clients.forEach(KubernetesClient::close);
        if (admin != null) {
            admin.close();
        }
        if (controlPlane != null) {
            controlPlane.close();
        }
        System.out.println("e2e: controller log:\n  " + String.join("\n  ", log));
    }

    private static void await(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("gave up waiting for: " + what + "\ncontroller log:\n" + String.join("\n", log));
            }
            ControlPlane.sleep(100);
        }
    }

    private static void createEngine(String name, String spec) {
        admin.resource(admin.getKubernetesSerialization().unmarshal("""
                {"apiVersion": "lmcache.lmcache.ai/v1alpha1", "kind": "CacheBlendEngine",
                 "metadata": {"name": "%s", "namespace": "%s"}, "spec": %s}""".formatted(name, NS, spec),
                GenericKubernetesResource.class)).create();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> status(String name) {
        GenericKubernetesResource e = admin.genericKubernetesResources("lmcache.lmcache.ai/v1alpha1", "CacheBlendEngine")
                .inNamespace(NS).withName(name).get();
        return e == null ? Map.of() : (Map<String, Object>) e.getAdditionalProperties().getOrDefault("status", Map.of());
    }

    @Test
    void oneOfTwoControllersLeadsTheEngineGetsOwnedChildrenAndStatusAndAHandEditIsReverted() {
        await("a leader on the Lease", () -> {
            Lease l = admin.leases().inNamespace(NS).withName(LEASE).get();
            return l != null && l.getSpec().getHolderIdentity() != null;
        });
        String leader = admin.leases().inNamespace(NS).withName(LEASE).get().getSpec().getHolderIdentity();
        assertThat(leader).isIn("replica-a", "replica-b");

        createEngine("tensormesh-cacheblend", """
                {"l1": {"sizeGB": 200}, "injection": {"payloadImage": {"repository": "tensormesh/cacheblend-plugin"}}}""");
        String cm = "tensormesh-cacheblend-connection";
        await("the connection ConfigMap", () -> admin.configMaps().inNamespace(NS).withName(cm).get() != null);
        await("the Pending status", () -> "Pending".equals(status("tensormesh-cacheblend").get("phase")));
        String uid = admin.genericKubernetesResources("lmcache.lmcache.ai/v1alpha1", "CacheBlendEngine").inNamespace(NS)
                .withName("tensormesh-cacheblend").get().getMetadata().getUid();

        List<OwnerReference> owners = new ArrayList<>();
        owners.addAll(admin.apps().daemonSets().inNamespace(NS).withName("tensormesh-cacheblend").get()
                .getMetadata().getOwnerReferences());
        owners.addAll(admin.services().inNamespace(NS).withName("tensormesh-cacheblend").get()
                .getMetadata().getOwnerReferences());
        owners.addAll(admin.services().inNamespace(NS).withName("tensormesh-cacheblend-metrics").get()
                .getMetadata().getOwnerReferences());
        owners.addAll(admin.configMaps().inNamespace(NS).withName(cm).get().getMetadata().getOwnerReferences());
        assertThat(owners).hasSize(4).allSatisfy(o -> {
            assertThat(o.getUid()).isEqualTo(uid);
            assertThat(o.getKind()).isEqualTo("CacheBlendEngine");
            assertThat(o.getController()).isTrue();
        });
        assertThat(admin.services().inNamespace(NS).withName("tensormesh-cacheblend").get().getSpec()
                .getInternalTrafficPolicy()).isEqualTo("Local");
        assertThat(admin.services().inNamespace(NS).withName("tensormesh-cacheblend-metrics").get().getSpec()
                .getClusterIP()).isEqualTo("None");
        ConfigMap stored = admin.configMaps().inNamespace(NS).withName(cm).get();
        String written = stored.getData().get("kv-transfer-config.json");
        assertThat(written).contains("\"lmcache.mp.port\": \"5555\"",
                "\"lmcache.mp.host\": \"tcp://tensormesh-cacheblend.tensormesh-operator.svc.cluster.local\"");
        assertThat(stored.getMetadata().getManagedFields()).extracting(f -> f.getManager())
                .contains("kvcache-injector");
        assertThat(status("tensormesh-cacheblend")).containsEntry("desiredInstances", 0)
                .containsEntry("readyInstances", 0);

        admin.configMaps().inNamespace(NS).withName(cm).edit(c -> {
            c.getData().put("kv-transfer-config.json", "{\"kv_connector\": \"SomethingElse\"}");
            return c;
        });
        await("the hand edit reverted", () -> written.equals(
                admin.configMaps().inNamespace(NS).withName(cm).get().getData().get("kv-transfer-config.json")));

        assertThat(log).filteredOn(l -> l.contains("reconciled: DaemonSet/tensormesh-cacheblend"))
                .isNotEmpty().allSatisfy(l -> assertThat(l).startsWith(leader + ": "));
        assertThat(log).noneMatch(l -> l.endsWith("LOST"));
    }

    @Test
    void anInvalidEngineIsFailedWithItsMessageAndGetsNoChild() {
        createEngine("broken", "{\"l1\": {\"sizeGB\": 60}, \"injection\": {\"payloadImage\": {\"repository\": \"\"}}}");
        await("the Failed status", () -> "Failed".equals(status("broken").get("phase")));
        assertThat(status("broken").get("conditions").toString()).contains("type=ConfigValid", "status=False",
                "reason=ValidationFailed",
                "CacheBlendEngine tensormesh-operator/broken is invalid: spec.injection.payloadImage.repository");
        assertThat(admin.configMaps().inNamespace(NS).withName("broken-connection").get()).isNull();
        assertThat(admin.apps().daemonSets().inNamespace(NS).withName("broken").get()).isNull();
    }
}
