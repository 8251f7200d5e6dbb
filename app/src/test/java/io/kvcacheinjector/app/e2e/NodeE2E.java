package io.kvcacheinjector.app.e2e;

import static io.kvcacheinjector.app.e2e.E2eSupport.since;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
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
 * The webhook as users run it: the image built from {@code deploy/Dockerfile} ({@code deploy/image.sh}), installed
 * by the tutorial's own {@code helm install}, started by a real kubelet and containerd as uid 65532 on a read-only
 * root with the chart's memory limit as a cgroup, gated by its probes, and called by the API server through its
 * Service; the Pods it mutates then started by the same kubelet. The cluster is {@code tools/e2e/cluster.sh}: all of
 * it, and every client, inside a network namespace of its own ({@link NodeCluster}); the Pods' resolver drops every
 * packet, as behind a default-deny egress policy.
 *
 * <p>Needs root and what {@code tools/e2e/provision.sh} provides (the node's binaries, containerd, runc, the CNI
 * plugins); without root it is skipped with one line saying why. docs/how-to/run-e2e.md, "A real node".
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class NodeE2E {
    private static final String SYSTEM = "kvcache-system";
    private static final String WEBHOOK_SELECTOR = "app.kubernetes.io/name=kvcache-injector";
    private static final String CLIENT_CONFIG = "kvcache.gpustack.ai/client-config";
    private static final String RECORD = "kvcache.gpustack.ai/injected";
    private static final String STUB = "kvci.local/engine-stub:1";
    private static final double LOAD_RATE = 10;
    // the API server's own share of a create (authentication, admission up to the webhook) before it sends the review
    private static final long IN_FLIGHT_SLACK_MS = 100;

    private static final Timings TIMINGS = new Timings();
    private static final Map<String, String> REPORT = new LinkedHashMap<>();
    private static Path repo;
    private static Path work;
    private static NodeCluster cluster;
    private static Path cacheImages;
    private static NodeMonitoring monitoring;
    private static long monitoringStarted;
    private static boolean failed;

    @RegisterExtension
    static final TestWatcher LOGS_ON_FAILURE = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            failed = true;
            if (cluster != null) {
                System.out.println(cluster.kubectl("get", "pods", "-A", "-o", "wide").out());
                System.out.println(cluster.kubectl("get", "events", "-A", "--sort-by=.lastTimestamp").out());
                System.out.println(cluster.kubectl("-n", SYSTEM, "logs", "-l", WEBHOOK_SELECTOR, "--tail=40",
                        "--prefix").out());
                System.out.println(cluster.logTails(15));
            }
        }
    };

    // ------------------------------------------------------------------------------------------------ set-up

    @BeforeAll
    // a cold provisioning builds every binary, the image its base; a cold cache-images.sh downloads and installs ~3 GB
    // of wheels, and a first seed imports its 6.7 GiB layer
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    static void buildTheImagesAndStartTheNode() throws Exception {
        Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux"),
                "NodeE2E: SKIPPED: a node needs Linux");
        Assumptions.assumeTrue(uid() == 0, "NodeE2E: SKIPPED: a node needs root (containerd, the kubelet's cgroups,"
                + " a network namespace); run the e2e suite as root");
        repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        ControlPlaneBinaries.Found found = ControlPlaneBinaries.locate(repo, System.getenv());
        if (found instanceof ControlPlaneBinaries.Unavailable u) {
            Assumptions.abort("NodeE2E: SKIPPED: " + u.reason());
        }
        Path assets = ((ControlPlaneBinaries.Available) found).dir();
        Assumptions.assumeTrue(Files.isExecutable(assets.resolve("kubelet")), "NodeE2E: SKIPPED: " + assets
                + " has no kubelet (tools/e2e/provision.sh ran with E2E_NODE=0)");
        work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "kvcache-node-e2e");

        long t = System.nanoTime();
        Path image = E2eSupport.webhookImage(repo, l -> REPORT.put("image (deploy/image.sh)", l));
        TIMINGS.add("webhook image (deploy/image.sh)", since(t));
        REPORT.put("image archive", String.format(Locale.ROOT, "%.1f MiB (%s)", Files.size(image) / 1048576.0, image));
        t = System.nanoTime();
        Path stubs = Path.of(run(List.of(repo.resolve("tools/e2e/images.sh").toString(),
                work.resolve("images").toString()), Duration.ofMinutes(5)).strip());
        TIMINGS.add("stub images (tools/e2e/images.sh)", since(t));
        // the cache cases' engine and Mooncake images: kept between runs (the script rebuilds only when its inputs
        // change; .ci/e2e builds it beside the provisioning and passes the same folder), and imported through the
        // node's seeded containerd root (tools/e2e/cluster.sh), so that a warm run imports nothing
        t = System.nanoTime();
        String xdg = System.getenv().getOrDefault("XDG_CACHE_HOME", "");
        Path out = System.getProperty("kvcache.e2e.cacheImages", "").isBlank()
                ? (xdg.isBlank() ? Path.of(System.getProperty("user.home"), ".cache") : Path.of(xdg))
                        .resolve("kvcache-injector/cache-images")
                : Path.of(System.getProperty("kvcache.e2e.cacheImages"));
        cacheImages = Path.of(run(List.of(repo.resolve("tools/e2e/cache-images.sh").toString(), out.toString()),
                Duration.ofMinutes(38)).strip().lines().reduce((a, b) -> b).orElseThrow());
        TIMINGS.add("cache images (tools/e2e/cache-images.sh)", since(t));
        t = System.nanoTime();
        cluster = NodeCluster.start(repo, assets, work.resolve("cluster"), List.of(stubs.resolve("pause.tar"),
                stubs.resolve("engine-stub.tar"), stubs.resolve("vllm-openai.tar"), stubs.resolve("cb-payload.tar"),
                image), List.of(cacheImages.resolve("mooncake.tar"), cacheImages.resolve("engines-cpu.tar")));
        TIMINGS.add("cluster up, images imported (the cache images seeded), node Ready", since(t));
    }

    @AfterAll
    static void tearDown() {
        if (monitoring != null) {
            monitoring.close();
        }
        if (cluster != null) {
            long t = System.nanoTime();
            cluster.close();
            TIMINGS.add("cluster down", since(t));
        }
        System.out.println("e2e: NodeE2E timings\n" + TIMINGS.table());
        StringBuilder report = new StringBuilder("e2e: NodeE2E report\n");
        REPORT.forEach((k, v) -> report.append("e2e:   ").append(k).append(": ").append(v).append('\n'));
        System.out.print(report);
        if (work != null && !failed) {
            E2eSupport.deleteRecursively(work);
        } else if (work != null) {
            System.out.println("e2e: NodeE2E kept " + work + " for the failure");
        }
    }

    // ------------------------------------------------------------------------------------------------ cases

    @Test
    @Order(1)
    void theTutorialsInstallWithTheBuiltImageBecomesAvailableAndIsCalledThroughItsService() throws IOException {
        String tutorial = Files.readString(repo.resolve("docs/tutorial/install-and-first-pod.md"));
        List<DocBlocks.Block> node = DocBlocks.parse(tutorial, "install-and-first-pod.md").stream()
                .filter(b -> b.kind() == DocBlocks.Kind.NODE).toList();
        assertThat(node).as("the tutorial's node blocks (helm install, rollout status)").hasSizeGreaterThanOrEqualTo(2);
        long t = System.nanoTime();
        for (DocBlocks.Block b : node) {
            NodeCluster.Result r = cluster.exec(List.of("bash", "-euo", "pipefail", "-c", b.text()), "",
                    Duration.ofMinutes(4));
            assertThat(r.exit()).as("the tutorial's block at line %d:\n%s\nprinted:\n%s%s", b.line(), b.text(),
                    r.out(), r.err()).isZero();
        }
        Duration available = since(t);
        TIMINGS.add("helm install -> webhook Deployment Available (the tutorial's blocks)", available);
        REPORT.put("helm install -> Available", Timings.format(available));

        // Available through the kubelet's real probes, never restarted, as uid 65532 on a read-only root
        List<WebhookPod> pods = webhookPods();
        assertThat(pods).hasSize(2).allSatisfy(p -> {
            assertThat(p.ready()).as("%s Ready", p.name()).isTrue();
            assertThat(p.restarts()).as("%s restarts", p.name()).isZero();
        });
        assertThat(cluster.kubectlOk("-n", SYSTEM, "get", "pods", "-l", WEBHOOK_SELECTOR, "-o",
                "jsonpath={.items[0].spec.containers[0].securityContext.readOnlyRootFilesystem}"
                        + " {.items[0].spec.securityContext.runAsUser}")).isEqualTo("true 65532");
        // the API server calls the webhook through its Service, not a URL
        String clientConfig = cluster.kubectlOk("get", "mutatingwebhookconfiguration", "kvcache-injector", "-o",
                "jsonpath={.webhooks[0].clientConfig.service.namespace}/{.webhooks[0].clientConfig.service.name}"
                        + " url={.webhooks[0].clientConfig.url}");
        assertThat(clientConfig).isEqualTo(SYSTEM + "/kvcache-injector url=");

        // the Pods' resolver drops every packet (cluster.sh): Ready above through the 1 s probes means the TLS
        // handshake waits for no lookup; the handshake as a client inside the namespace measures it
        String podIp = cluster.kubectlOk("-n", SYSTEM, "get", "pod", pods.getFirst().name(), "-o",
                "jsonpath={.status.podIP}");
        List<String> handshakes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            handshakes.add(cluster.exec(List.of("curl", "-sk", "-o", "/dev/null", "-w", "%{time_appconnect}",
                    "https://" + podIp + ":8443/healthz"), "", Duration.ofSeconds(30)).requireSuccess("curl").out());
        }
        REPORT.put("TLS handshake with the webhook, Pod DNS dropping packets (5 new connections, s)",
                String.join(" ", handshakes));

        // the tutorial's pool, as written, then a create the API server sends to the Service
        runTutorialBlockContaining(tutorial, "kind: KVCachePool\n");
        String dryRun = cluster.kubectlIn(vllmPod("probe", Map.of()), "create", "--dry-run=server", "-o",
                "jsonpath={.metadata.annotations.kvcache\\.gpustack\\.ai/injected}", "-f", "-")
                .requireSuccess("kubectl create --dry-run=server").out();
        assertThat(dryRun).contains("\"binding\":\"chat\"", "\"engine\":\"vllm\"");

        // a real Prometheus scrapes the replicas from now on, while the other cases load them (the last case asserts)
        t = System.nanoTime();
        monitoringStarted = t;
        monitoring = NodeMonitoring.start(cluster, repo, work, "kvcache-injector", SYSTEM);
        TIMINGS.add("prometheus: chart's monitoring objects rendered, started, ready", since(t));
    }

    @Test
    @Order(2)
    void anInjectedVllmPodRunsWithItsClientConfigProjectedByteForByte() {
        long t = System.nanoTime();
        cluster.kubectlIn(deployment("chat", vllmPod("chat", Map.of())), "apply", "-f", "-")
                .requireSuccess("kubectl apply chat");
        String pod = awaitRunning("team-a", "app=chat");
        Duration running = since(t);
        TIMINGS.add("create vLLM Deployment -> injected Pod Running", running);
        REPORT.put("create -> injected Pod Running (vLLM)", Timings.format(running));

        String annotation = cluster.kubectlOk("-n", "team-a", "get", "pod", pod, "-o",
                "jsonpath={.metadata.annotations.kvcache\\.gpustack\\.ai/client-config}");
        String configPath = cluster.kubectlOk("-n", "team-a", "get", "pod", pod, "-o",
                "jsonpath={.spec.containers[0].env[?(@.name==\"MOONCAKE_CONFIG_PATH\")].value}");
        StubReport report = stubReport("team-a", pod);
        assertThat(annotation).as("the Pod's client-config annotation").contains("\"master_server_address\"");
        assertThat(report.files()).as("the files the engine container sees at MOONCAKE_CONFIG_PATH")
                .containsEntry(configPath, annotation);
        assertThat(report.env()).containsEntry("MOONCAKE_CONFIG_PATH", configPath);
        assertThat(report.argv()).containsSubsequence("--kv-transfer-config",
                "{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}");
        // the condition the webhook runs under in this suite: the Pods' resolver drops packets, a lookup hangs
        if (!"refuse".equals(System.getenv("E2E_NODE_DNS"))) {
            assertThat(report.reverseLookup()).as("a reverse lookup through the Pods' resolver")
                    .contains("198.51.100.53").containsIgnoringCase("timeout");
        }
        REPORT.put("Pod DNS packets dropped (the stub's lookup; the webhook's none)", cluster.exec(List.of("iptables",
                "-w", "-L", "FORWARD", "-v", "-n", "-x"), "", Duration.ofSeconds(30)).out().lines()
                .filter(l -> l.contains("198.51.100.53")).map(l -> l.trim().split("\\s+")[0]).findFirst().orElse("?"));
    }

    @Test
    @Order(3)
    void anSglangPodSeesItsOwnPodIpAsItsMooncakeHostname() {
        String pod = """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: sglang-0
                  namespace: team-a
                  labels:
                    kvcache.gpustack.ai/inject: "true"
                  annotations:
                    kvcache.gpustack.ai/binding: chat
                    kvcache.gpustack.ai/engine: SGLang
                spec:
                  terminationGracePeriodSeconds: 2
                  containers:
                    - name: server
                      image: %s
                      imagePullPolicy: Never
                      command: ["python3", "-m", "sglang.launch_server"]
                      args: ["--model-path", "Qwen/Qwen3-8B"]
                """.formatted(STUB);
        cluster.kubectlIn(pod, "create", "-f", "-").requireSuccess("kubectl create sglang-0");
        awaitRunning("team-a", "", "sglang-0");
        String podIp = cluster.kubectlOk("-n", "team-a", "get", "pod", "sglang-0", "-o", "jsonpath={.status.podIP}");
        StubReport report = stubReport("team-a", "sglang-0");
        assertThat(podIp).matches("198\\.18\\.0\\.\\d+");
        assertThat(report.env()).as("the environment inside the SGLang container")
                .containsEntry("MOONCAKE_LOCAL_HOSTNAME", podIp);
        assertThat(report.argv()).containsSubsequence("--hicache-storage-backend", "mooncake");
    }

    @Test
    @Order(4)
    void theFreezeHoldsOnARunningPod() {
        String pod = awaitRunning("team-a", "app=chat");
        NodeCluster.Result r = cluster.kubectl("-n", "team-a", "annotate", "pod", pod, "--overwrite",
                CLIENT_CONFIG + "={\"protocol\":\"rdma\"}");
        assertThat(r.exit()).as("an edit of the running Pod's client-config").isNotZero();
        assertThat(r.err()).contains("frozen-client-config", "team-a/" + pod,
                "change the Binding, or the Pod's definition, and let the Pod be replaced");
        // the record, too; and the Pod is still running with its configuration
        NodeCluster.Result record = cluster.kubectl("-n", "team-a", "annotate", "pod", pod, "--overwrite",
                RECORD + "={}");
        assertThat(record.exit()).isNotZero();
        assertThat(record.err()).contains(RECORD, "team-a/" + pod);
        assertThat(cluster.kubectlOk("-n", "team-a", "get", "pod", pod, "-o", "jsonpath={.status.phase}"))
                .isEqualTo("Running");
        // the policy's own latency: it is evaluated only on edits of a frozen key (its match conditions leave every
        // other update alone), so measure it over twenty such edits, each refused
        MetricsSnapshot before = apiServerMetrics();
        for (int i = 0; i < 20; i++) {
            NodeCluster.Result edit = cluster.kubectl("-n", "team-a", "annotate", "pod", pod, "--overwrite",
                    "--dry-run=server", CLIENT_CONFIG + "={\"protocol\":\"tcp\",\"n\":" + i + "}");
            assertThat(edit.err()).contains("frozen-client-config");
        }
        String vap = "apiserver_validating_admission_policy_check_duration_seconds";
        Map<String, String> policy = Map.of("policy", "kvcache-injector-freeze");
        MetricsSnapshot after = apiServerMetrics();
        REPORT.put("freeze policy: " + vap + " (p50/p99)", after.quantile(vap, policy, before, 0.5) + "/"
                + after.quantile(vap, policy, before, 0.99) + " s over "
                + (long) (after.total(vap + "_count", policy) - before.total(vap + "_count", policy))
                + " refused UPDATEs");
    }

    @Test
    @Order(5)
    void theCacheBlendSpecificationsFlowRunsOnTheNode() {
        // a GPU node as the engine's DaemonSet selects it; its runtime class is runc here (tools/e2e/cluster.sh)
        cluster.kubectlOk("label", "node", "kvci-node", "nvidia.com/gpu.present=true", "--overwrite");
        cluster.kubectlIn("""
                apiVersion: node.k8s.io/v1
                kind: RuntimeClass
                metadata:
                  name: nvidia
                handler: nvidia
                """, "apply", "-f", "-").requireSuccess("RuntimeClass nvidia");
        // the specification's values, with the images pointed at the stubs and an L1 that fits this node
        long t = System.nanoTime();
        cluster.exec(List.of("helm", "upgrade", "kvcache-injector", "deploy/helm/kvcache-injector", "-n", SYSTEM,
                "--reuse-values", "-f", "docs/examples/cacheblend/my-values.yaml",
                "--set", "cacheBlend.spec.l1.sizeGB=1",
                "--set", "cacheBlend.spec.image.repository=kvci.local/engine-stub",
                "--set-string", "cacheBlend.spec.image.tag=1",
                "--set", "cacheBlend.spec.injection.payloadImage.repository=kvci.local/cb-payload",
                "--set-string", "cacheBlend.spec.injection.payloadImage.tag=1",
                "--wait", "--timeout", "4m"), "", Duration.ofMinutes(5)).requireSuccess("helm upgrade -f my-values.yaml");
        TIMINGS.add("helm upgrade with the CacheBlend values (--wait)", since(t));
        String engine = cluster.kubectlOk("-n", SYSTEM, "get", "cacheblendengine", "-o",
                "jsonpath={.items[*].metadata.name}");
        assertThat(engine).isEqualTo("tensormesh-cacheblend");
        String daemonPod = awaitRunning(SYSTEM, "app.kubernetes.io/name=cacheblend-engine");
        assertThat(cluster.kubectlOk("-n", SYSTEM, "get", "pod", daemonPod, "-o", "jsonpath={.spec.hostIPC}"))
                .isEqualTo("true");
        awaitTrue("the connection ConfigMap tensormesh-cacheblend-connection", Duration.ofMinutes(1),
                () -> cluster.kubectl("-n", SYSTEM, "get", "configmap", "tensormesh-cacheblend-connection").exit() == 0);

        // the workload namespace and the plugin's pull Secret, as the specification creates them
        for (List<String> command : List.of(List.of("kubectl", "create", "ns", "cacheblend-workload"),
                List.of("kubectl", "label", "ns", "cacheblend-workload", "pod-security.kubernetes.io/enforce=privileged"),
                List.of("kubectl", "-n", "cacheblend-workload", "create", "secret", "docker-registry",
                        "cacheblend-plugin-pull", "--docker-server=docker.io", "--docker-username=user",
                        "--docker-password=token"))) {
            cluster.exec(command, "", Duration.ofMinutes(1)).requireSuccess(String.join(" ", command));
        }
        t = System.nanoTime();
        cluster.kubectlIn("""
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: blend
                  namespace: cacheblend-workload
                spec:
                  replicas: 1
                  selector:
                    matchLabels: {app: blend}
                  template:
                    metadata:
                      labels:
                        app: blend
                        lmcache.ai/cacheblend-inject: "true"
                      annotations:
                        lmcache.ai/cacheblend-engine: "kvcache-system/tensormesh-cacheblend"
                    spec:
                      terminationGracePeriodSeconds: 2
                      containers:
                        - name: vllm
                          image: kvci.local/vllm-openai:1
                          imagePullPolicy: Never
                          args: ["Qwen/Qwen3-8B"]
                """, "apply", "-f", "-").requireSuccess("the opted-in vLLM Deployment");
        String pod = awaitRunning("cacheblend-workload", "app=blend");
        TIMINGS.add("create CacheBlend vLLM Deployment -> Pod Running (cb-plugin-stage done)", since(t));
        String spec = cluster.kubectlOk("-n", "cacheblend-workload", "get", "pod", pod, "-o",
                "jsonpath={.spec.hostIPC} {.spec.initContainers[*].name} {.status.initContainerStatuses[0].state"
                        + ".terminated.exitCode} {.spec.imagePullSecrets[*].name}");
        assertThat(spec).isEqualTo("true cb-plugin-stage 0 cacheblend-plugin-pull");
        StubReport report = stubReport("cacheblend-workload", pod);
        assertThat(report.argv()).as("vLLM's arguments").contains("--kv-transfer-config")
                .anySatisfy(a -> assertThat(a).contains("CBKVConnector"));
        assertThat(report.files()).isEmpty();
        assertThat(stagedFiles("cacheblend-workload", pod)).as("what cb-plugin-stage staged, seen by vLLM")
                .contains("/cb-plugin/lmcache_cacheblend/__init__.py");
    }

    @Test
    @Order(6)
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void rollingRestartsUnderLoadLoseNoCreate() throws Exception {
        MetricsSnapshot before = apiServerMetrics();
        LoadRun load = startLoad("rollouts", 150);
        List<MemorySample> memory = new ArrayList<>();
        sampleMemoryFor(Duration.ofSeconds(10), memory);
        for (int i = 1; i <= 3; i++) {
            long t = System.nanoTime();
            cluster.kubectlOk("-n", SYSTEM, "rollout", "restart", "deployment/kvcache-injector");
            cluster.kubectl("-n", SYSTEM, "rollout", "status", "deployment/kvcache-injector", "--timeout=180s")
                    .requireSuccess("rollout " + i);
            TIMINGS.add("rollout restart " + i + " under load -> complete", since(t));
            sampleMemoryFor(Duration.ofSeconds(8), memory);
        }
        List<LoadLine> lines = load.stop();
        MetricsSnapshot after = apiServerMetrics();
        reportLoad("rollouts", lines, before, after);
        reportMemory(memory);
        assertNothingLost("three rolling restarts in a row", lines);
        assertThat(webhookPods()).allSatisfy(p -> assertThat(p.restarts()).as("%s restarts", p.name()).isZero());
    }

    @Test
    @Order(7)
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aKilledWebhookContainerUnderLoadFailsClosedOnlyWhatReachedTheDeadReplica() throws Exception {
        MetricsSnapshot before = apiServerMetrics();
        LoadRun load = startLoad("kill", 60);
        sleep(Duration.ofSeconds(10));
        // the replica the API server is connected to, the worst case: a replica it holds no connection to takes
        // no review, so killing it would prove nothing
        WebhookPod victim = connectedWebhookPod();
        String victimIp = cluster.kubectlOk("-n", SYSTEM, "get", "pod", victim.name(), "-o",
                "jsonpath={.status.podIP}").strip();
        REPORT.put("kill -9: the victim", victim.name() + " " + victimIp
                + " (the replica holding the API server's connections)");
        long pid = cluster.taskPid(victim.containerId());
        long t = System.nanoTime();
        long killFrom = System.currentTimeMillis();
        run(List.of("kill", "-9", Long.toString(pid)), Duration.ofSeconds(10));
        long killTo = System.currentTimeMillis();
        awaitTrue("the killed container of " + victim.name() + " restarted and Ready", Duration.ofMinutes(2),
                () -> webhookPods().stream().anyMatch(p -> p.name().equals(victim.name()) && p.restarts() == 1
                        && p.ready()));
        long readyAgain = System.currentTimeMillis();
        TIMINGS.add("kill -9 of " + victim.name() + " -> restarted and Ready", since(t));
        List<LoadLine> lines = load.stop();
        reportLoad("kill -9", lines, before, apiServerMetrics());
        long zero = load.startEpochMs();
        assertOnlyInFlightFailedClosed(lines, killFrom - zero, killTo - zero, victimIp, readyAgain - zero);
    }

    // ------------------------------------------------------------------------------------------------ the cache
    // A real Mooncake pool and real engines on the node (CachePool; docs/how-to/see-the-cache-work.md): the
    // configuration the webhook writes is used, a block one Pod stored is hit by another, roles and tenants hold.

    @Test
    @Order(8)
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    void aRealMooncakePoolRunsOnTheNodeAndTheEnginesStartInjected() throws IOException {
        for (String archive : List.of("mooncake.tar", "engines-cpu.tar")) {
            REPORT.put("cache image archive " + archive, mib(Files.size(cacheImages.resolve(archive))));
        }
        long t = System.nanoTime();
        cluster.kubectlIn(CachePool.pool(), "apply", "-f", "-").requireSuccess("kubectl apply the pool");
        cluster.kubectl("-n", "kv", "rollout", "status", "deployment/mc-master", "--timeout=180s")
                .requireSuccess("the master Ready");
        cluster.kubectl("-n", "kv", "rollout", "status", "deployment/mc-member", "--timeout=180s")
                .requireSuccess("the member Running");
        TIMINGS.add("Mooncake master and member Running", since(t));

        cluster.kubectlIn(CachePool.poolObjectsAndBindings(), "apply", "-f", "-")
                .requireSuccess("kubectl apply the pool objects and Bindings");
        cluster.kubectlOk("patch", "kvcachepool", "node", "--subresource=status", "--type=merge", "-p",
                CachePool.poolStatus(CachePool.MASTER_IP));
        cluster.kubectlOk("patch", "kvcachepool", "nowhere", "--subresource=status", "--type=merge", "-p",
                CachePool.poolStatus(CachePool.NOWHERE_IP));

        // every engine at once: the two cores are the cost, not the count
        t = System.nanoTime();
        for (String d : List.of(CachePool.vllmDeployment("cache-a", "chat", 2, "chat", ""),
                CachePool.vllmDeployment("cache-a", "decode", 1, "chat", "Decode"),
                CachePool.vllmDeployment("cache-b", "chat", 1, "chat", ""))) {
            cluster.kubectlIn(d, "apply", "-f", "-").requireSuccess("kubectl apply a vLLM Deployment");
        }
        for (String[] d : List.of(new String[] {"cache-a", "chat"}, new String[] {"cache-a", "decode"},
                new String[] {"cache-b", "chat"})) {
            NodeCluster.Result r = cluster.exec(List.of("kubectl", "-n", d[0], "rollout", "status", "deployment/"
                    + d[1], "--timeout=1500s"), "", Duration.ofMinutes(26));
            assertThat(r.exit()).as("vLLM Deployment %s/%s Ready:\n%s%s\n%s", d[0], d[1], r.out(), r.err(),
                    cluster.kubectl("-n", d[0], "logs", "deployment/" + d[1], "--tail=60").out()).isZero();
        }
        Duration ready = since(t);
        TIMINGS.add("4 injected vLLM Pods created -> all Ready (/health)", ready);
        REPORT.put("4 vLLM Pods on 2 cores: create -> Ready", Timings.format(ready));

        // what the engine read: its own log line names the mode, the segment and the tenant
        String pod = vllmPods("cache-a", "chat").getFirst();
        String log = cluster.kubectlOk("-n", "cache-a", "logs", pod);
        String line = log.lines().filter(l -> l.contains("Mooncake mode=")).findFirst()
                .orElseThrow(() -> new AssertionError("no 'Mooncake mode=' line in the log of " + pod + ":\n" + log));
        REPORT.put("vLLM's own account of the injected configuration", line.strip());
        assertThat(line).contains("standalone-store", "global_segment_size=0", CachePool.DOMAIN_A);
    }

    @Test
    @Order(9)
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aSecondReplicaGetsThePromptFromThePoolThatTheFirstStored() {
        List<String> replicas = vllmPods("cache-a", "chat");
        assertThat(replicas).hasSize(2);
        Completion first = complete("cache-a", replicas.get(0));
        int blocks = CachePool.PROMPT_TOKENS / 128;
        awaitTrue("replica 1 stored the prompt's " + blocks + " full blocks in the pool", Duration.ofMinutes(2), () -> {
            sleep(Duration.ofSeconds(1));
            return engine("cache-a", replicas.get(0)).total(SAVE_PUT, OK_SAVE) >= blocks;
        });
        MetricsSnapshot stored = engine("cache-a", replicas.get(0));
        Completion second = complete("cache-a", replicas.get(1));
        MetricsSnapshot hit = engine("cache-a", replicas.get(1));

        double hits = hit.total(EXTERNAL_HITS, Map.of());
        double fromPool = hit.total(TOKENS_BY_SOURCE, Map.of("source", "external_kv_transfer"));
        REPORT.put("reuse: replica 1 " + replicas.get(0), String.format(Locale.ROOT,
                "prompt %d tokens, save_put %.0f keys, external hits %.0f", first.promptTokens(),
                stored.total(SAVE_PUT, OK_SAVE), stored.total(EXTERNAL_HITS, Map.of())));
        REPORT.put("reuse: replica 2 " + replicas.get(1), String.format(Locale.ROOT,
                "external prefix cache hits %.0f of %d (%.1f %%), tokens from external_kv_transfer %.0f,"
                        + " load_get %.0f keys", hits, second.promptTokens(), 100 * hits / second.promptTokens(),
                fromPool, hit.total(LOAD_GET, OK_LOAD)));
        assertThat(first.promptTokens()).isEqualTo(CachePool.PROMPT_TOKENS);
        assertThat(stored.total(EXTERNAL_HITS, Map.of())).as("replica 1 found nothing: the pool was empty").isZero();
        assertThat(hits).as("replica 2's external prefix cache hits for the %d-token prompt replica 1 stored",
                second.promptTokens()).isGreaterThanOrEqualTo(0.95 * second.promptTokens());
        assertThat(fromPool).isEqualTo(hits);
        assertThat(second.text()).as("the output computed from the pool's KV").isEqualTo(first.text());
        reference = first;
    }

    @Test
    @Order(10)
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aDecodePodHitsWhatAnotherStoredAndStoresNothing() {
        String pod = vllmPods("cache-a", "decode").getFirst();
        assertThat(cluster.kubectlOk("-n", "cache-a", "get", "pod", pod, "-o", "jsonpath={.spec.containers[0].args}"))
                .contains("kv_consumer");
        Completion c = complete("cache-a", pod);
        sleep(Duration.ofSeconds(3)); // a save would be issued right after the request
        MetricsSnapshot m = engine("cache-a", pod);
        double hits = m.total(EXTERNAL_HITS, Map.of());
        REPORT.put("roles: Decode " + pod, String.format(Locale.ROOT, "external hits %.0f of %d, save_put %.0f keys",
                hits, c.promptTokens(), m.total(SAVE_PUT, ANY_SAVE)));
        assertThat(hits).isGreaterThanOrEqualTo(0.95 * c.promptTokens());
        assertThat(m.total(SAVE_PUT, ANY_SAVE)).as("keys a Decode (kv_consumer) Pod put into the pool").isZero();
        if (reference != null) {
            assertThat(c.text()).isEqualTo(reference.text());
        }
    }

    @Test
    @Order(11)
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void anotherTenantHitsNothingAndTheMasterChargesEachDomain() {
        String pod = vllmPods("cache-b", "chat").getFirst();
        Completion c = complete("cache-b", pod);
        int blocks = CachePool.PROMPT_TOKENS / 128;
        awaitTrue("cache-b's Pod stored its own blocks", Duration.ofMinutes(2), () -> {
            sleep(Duration.ofSeconds(1));
            return engine("cache-b", pod).total(SAVE_PUT, OK_SAVE) >= blocks;
        });
        MetricsSnapshot m = engine("cache-b", pod);
        MetricsSnapshot master = master();
        double chargedA = master.total(CHARGED, Map.of("tenant_id", CachePool.DOMAIN_A));
        double chargedB = master.total(CHARGED, Map.of("tenant_id", CachePool.DOMAIN_B));
        REPORT.put("tenants: cache-b " + pod, String.format(Locale.ROOT, "external hits %.0f of %d, save_put %.0f keys",
                m.total(EXTERNAL_HITS, Map.of()), c.promptTokens(), m.total(SAVE_PUT, OK_SAVE)));
        REPORT.put("tenants: the master's charge", String.format(Locale.ROOT, "%s %.0f B, %s %.0f B, keys %.0f",
                CachePool.DOMAIN_A, chargedA, CachePool.DOMAIN_B, chargedB, master.total("master_key_count", Map.of())));
        assertThat(m.total(EXTERNAL_HITS, Map.of())).as("hits of a Pod in the domain %s for a prompt only %s stored",
                CachePool.DOMAIN_B, CachePool.DOMAIN_A).isZero();
        assertThat(chargedA).as("the master's charge for %s", CachePool.DOMAIN_A).isPositive();
        assertThat(chargedB).as("the master's charge for %s", CachePool.DOMAIN_B).isPositive();
    }

    @Test
    @Order(12)
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void seeTheCacheWorkRunsAsWritten() throws IOException {
        runNodeBlocks("docs/how-to/see-the-cache-work.md", Duration.ofMinutes(3));
        // the engines are done: their cores go to what follows
        for (String ns : List.of("cache-a", "cache-b")) {
            cluster.kubectlOk("-n", ns, "delete", "deployment", "--all", "--wait=false");
        }
    }

    @Test
    @Order(13)
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void sglangsOwnReaderReadsThePoolThroughTheInjectedEnvironmentOnlyWithinItsTenant() {
        cluster.kubectlIn(CachePool.sglangPod("cache-a", "sglang-put", "put"), "create", "-f", "-")
                .requireSuccess("kubectl create sglang-put");
        // the unreachable pool's Pod starts now too: its retries take minutes of waiting, not of cores
        cluster.kubectlIn(CachePool.vllmDeployment("cache-a", "unreachable", 1, "gone", ""), "apply", "-f", "-")
                .requireSuccess("kubectl apply unreachable");
        Map<String, Object> put = probe("cache-a", "sglang-put");
        for (String[] p : List.of(new String[] {"cache-a", "sglang-get"}, new String[] {"cache-b", "sglang-get"})) {
            cluster.kubectlIn(CachePool.sglangPod(p[0], p[1], "get"), "create", "-f", "-")
                    .requireSuccess("kubectl create " + p[0] + "/" + p[1]);
        }
        Map<String, Object> same = probe("cache-a", "sglang-get");
        Map<String, Object> other = probe("cache-b", "sglang-get");
        REPORT.put("SGLang put (cache-a)", json(put));
        REPORT.put("SGLang get (cache-a)", json(same));
        REPORT.put("SGLang get (cache-b)", json(other));

        String podIp = cluster.kubectlOk("-n", "cache-a", "get", "pod", "sglang-put", "-o", "jsonpath={.status.podIP}");
        @SuppressWarnings("unchecked")
        Map<String, Object> config = (Map<String, Object>) put.get("config");
        assertThat(config).as("what SGLang's own reader (load_from_env) read from the injected environment")
                .containsEntry("local_hostname", podIp)
                .containsEntry("master_server_address", CachePool.MASTER_IP + ":50051")
                .containsEntry("protocol", "tcp")
                .containsEntry("tenant_id", CachePool.DOMAIN_A);
        assertThat(put).containsEntry("hicacheStorageBackend", "mooncake").containsEntry("setup", 0)
                .containsEntry("put", 0);
        assertThat(same).containsEntry("found", true).containsEntry("equal", true);
        assertThat(other).as("a page of %s read by a Pod of %s", CachePool.DOMAIN_A, CachePool.DOMAIN_B)
                .containsEntry("setup", 0).containsEntry("found", false);
    }

    @Test
    @Order(14)
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aPodTheContractRefusesNeverStarts() {
        String pod = """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: scripted
                  namespace: cache-a
                  labels:
                    kvcache.gpustack.ai/inject: "true"
                  annotations:
                    kvcache.gpustack.ai/binding: chat
                    kvcache.gpustack.ai/engine: vLLM
                spec:
                  containers:
                    - name: server
                      image: %s
                      imagePullPolicy: Never
                      command: ["sh", "-c", "vllm serve --model %s --dtype float32"]
                """.formatted(CachePool.VLLM, CachePool.MODEL);
        NodeCluster.Result r = cluster.kubectlIn(pod, "create", "-f", "-");
        REPORT.put("refused: sh -c", r.err().strip());
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).as("the refusal names the code, the container, the shell and the fix")
                .contains("launch-shell-c", "container \"server\"", "\"sh\" with \"-c\"", "Launch the engine directly");
        assertThat(cluster.kubectl("-n", "cache-a", "get", "pod", "scripted").exit()).as("the refused Pod exists")
                .isNotZero();
    }

    @Test
    @Order(15)
    @Timeout(value = 16, unit = TimeUnit.MINUTES)
    void aPodBoundToAPoolWhoseMasterDoesNotAnswerCrashLoops() {
        long t = System.nanoTime();
        String[] state = new String[1];
        awaitTrue("the unreachable pool's vLLM Pod to exit", Duration.ofMinutes(15), () -> {
            sleep(Duration.ofSeconds(3));
            NodeCluster.Result r = cluster.kubectl("-n", "cache-a", "get", "pods", "-l", "app=unreachable", "-o",
                    "jsonpath={.items[0].metadata.name} {.items[0].status.containerStatuses[0].restartCount}"
                            + " {.items[0].status.containerStatuses[0].lastState.terminated.exitCode}"
                            + " {.items[0].status.containerStatuses[0].ready}");
            state[0] = r.out().strip();
            String[] f = state[0].split(" ");
            return f.length == 4 && Integer.parseInt(f[1]) >= 1;
        });
        Duration firstExit = since(t);
        String[] f = state[0].split(" ");
        String log = cluster.kubectl("-n", "cache-a", "logs", f[0], "--previous").out();
        long retries = log.lines().filter(l -> l.contains("Client not available")).count();
        String said = retries + " x 'Client not available', then: " + log.lines()
                .filter(l -> l.startsWith("RuntimeError")).findFirst().orElse("(no RuntimeError line)").strip();
        REPORT.put("unreachable pool: what the user sees", String.format(Locale.ROOT,
                "first exit %s after create, exit code %s, restarts %s, Ready %s; last engine line: %s",
                Timings.format(firstExit), f[2], f[1], f[3], said.strip()));
        TIMINGS.add("unreachable pool: create -> first container exit", firstExit);
        assertThat(f[2]).as("the exit code of vLLM whose pool does not answer").isNotEqualTo("0");
        assertThat(f[3]).isEqualTo("false");
        assertThat(log).as("the engine's own message in the log of the container that exited")
                .contains("Client not available", "Initialize MooncakeDistributedStore failed");
        cluster.kubectlOk("-n", "cache-a", "delete", "deployment", "unreachable", "--wait=false");
    }

    @Test
    @Order(16)
    void theNetworkPolicyInstalledOnTheNodeStillLetsTheApiServerCallTheWebhookThroughItsService() {
        long t = System.nanoTime();
        cluster.exec(List.of("helm", "upgrade", "kvcache-injector", "deploy/helm/kvcache-injector", "-n", SYSTEM,
                "--reset-then-reuse-values", "--set", "networkPolicy.enabled=true", "--wait", "--timeout", "4m"), "",
                Duration.ofMinutes(5)).requireSuccess("helm upgrade --set networkPolicy.enabled=true");
        TIMINGS.add("helm upgrade with networkPolicy.enabled (--wait)", since(t));
        // the policy the chart renders: the webhook Pods, 8443 in from anywhere, out to 443/6443 and DNS only
        assertThat(cluster.kubectlOk("-n", SYSTEM, "get", "networkpolicy", "kvcache-injector", "-o",
                "jsonpath={.spec.policyTypes} {.spec.ingress[0].ports[0].port} {.spec.egress[0].ports[*].port}"
                        + " {.spec.egress[1].ports[*].port}"))
                .isEqualTo("[\"Ingress\",\"Egress\"] 8443 443 6443 53 53");
        assertThat(cluster.kubectlOk("-n", SYSTEM, "get", "networkpolicy", "kvcache-injector", "-o",
                "jsonpath={.spec.podSelector.matchLabels.app\\.kubernetes\\.io/name}")).isEqualTo("kvcache-injector");
        // admission still goes API server -> Service -> Pod: an opted-in create comes back injected
        String dryRun = cluster.kubectlIn(vllmPod("netpol-probe", Map.of()), "create", "--dry-run=server", "-o",
                "jsonpath={.metadata.annotations.kvcache\\.gpustack\\.ai/injected}", "-f", "-")
                .requireSuccess("kubectl create --dry-run=server with the NetworkPolicy").out();
        assertThat(dryRun).contains("\"binding\":\"chat\"", "\"engine\":\"vllm\"");
        // honest: the node's CNI is the plain bridge plugin, which enforces no NetworkPolicy; this shows the policy
        // installs and breaks nothing, not that a CNI which enforces it would let the API server through
        REPORT.put("NetworkPolicy on the node",
                "installed; admission through the Service works; not enforced (bridge CNI)");
        cluster.exec(List.of("helm", "upgrade", "kvcache-injector", "deploy/helm/kvcache-injector", "-n", SYSTEM,
                "--reset-then-reuse-values", "--set", "networkPolicy.enabled=false", "--wait", "--timeout", "4m"), "",
                Duration.ofMinutes(5)).requireSuccess("helm upgrade --set networkPolicy.enabled=false");
    }

    // ------------------------------------------------------------------------------------------------ monitoring
    // The Prometheus started by the first case has scraped the replicas through every case since; the chart's
    // dashboard and alerts must find the webhook's data in it (docs/how-to/run-e2e.md, "Prometheus on the node").

    @Test
    @Order(100)
    void aRealPrometheusScrapesEveryReplicaAsTheServiceMonitorSaysAndEveryPanelAndAlertHasData() throws IOException {
        assertThat(monitoring).as("the Prometheus the first case started").isNotNull();
        long t = System.nanoTime();
        // the cases refuse one Pod of the webhook's own (the rest is the freeze policy's): a dozen more, one a second,
        // so that the refusals panel has a rate to draw, not only a series born at 1
        String scripted = vllmPod("scripted-dry-run", Map.of())
                .replace("command: [\"vllm\"]", "command: [\"sh\", \"-c\", \"vllm serve --model Qwen/Qwen3-8B\"]")
                .replace("      args: [\"serve\", \"--model\", \"Qwen/Qwen3-8B\"]\n", "");
        for (int i = 0; i < 12; i++) {
            NodeCluster.Result refused = cluster.kubectlIn(scripted, "create", "--dry-run=server", "-f", "-");
            assertThat(refused.exit()).as("a shell-wrapped create").isNotZero();
            assertThat(refused.err()).contains("launch-shell-c");
            sleep(Duration.ofSeconds(1));
        }
        sleep(Duration.ofSeconds(5)); // two more scrapes
        int replicas = webhookPods().size();
        List<Map<String, String>> targets = monitoring.awaitTargetsUp(replicas);
        REPORT.put("prometheus: webhook targets up", targets.size() + " " + targets.stream()
                .map(l -> l.get("pod")).toList());
        assertThat(targets).as("one target per replica, labelled as the operator labels them").hasSize(replicas)
                .allSatisfy(l -> assertThat(l).containsEntry("namespace", SYSTEM).containsKeys("pod", "service",
                        "endpoint", "job"));
        Map<String, String> unhealthy = monitoring.awaitRulesEvaluated();
        assertThat(unhealthy).as("rules whose evaluation is not ok").isEmpty();

        Map<String, Integer> found = new LinkedHashMap<>();
        Map<String, String> empty = new LinkedHashMap<>();
        monitoring.evaluate(found::put, empty::put);
        found.forEach((k, v) -> REPORT.put("prometheus: data " + k, v + " series"));
        empty.forEach((k, v) -> REPORT.put("prometheus: NO DATA " + k, v));
        Map<String, String> allowedEmpty = new LinkedHashMap<>();
        empty.forEach((k, v) -> {
            String why = NodeMonitoring.LEGITIMATELY_EMPTY.get(k);
            if (why != null) {
                allowedEmpty.put(k, why);
            }
        });
        allowedEmpty.keySet().forEach(empty::remove);
        allowedEmpty.forEach((k, v) -> REPORT.put("prometheus: empty by design " + k, v));

        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("pod memory limit", cluster.kubectlOk("-n", SYSTEM, "get", "deployment", "kvcache-injector", "-o",
                "jsonpath={.spec.template.spec.containers[0].resources.limits.memory}"));
        meta.put("replicas", String.valueOf(replicas));
        meta.put("run", "NodeE2E " + java.time.Instant.now());
        Path saved = monitoring.saveQueryRanges(Path.of(System.getProperty("kvcache.e2e.reports",
                "target/e2e-reports")), meta);
        REPORT.put("prometheus: query_range saved", saved.toAbsolutePath().toString());
        TIMINGS.add("prometheus: targets, rules, panel and alert queries, query_range saved", since(t));
        REPORT.put("prometheus: scraping (concurrent with the cases)", Timings.format(since(monitoringStarted)));
        assertThat(empty).as("dashboard panels and alert measurements that returned no series from the running"
                + " webhook (name -> the query sent)").isEmpty();
    }

    private static final String SAVE_PUT = "vllm:mooncake_store_operation_keys_total";
    private static final String LOAD_GET = SAVE_PUT;
    private static final Map<String, String> OK_SAVE = Map.of("operation", "save_put", "status", "ok");
    /** Every put, whatever its status: a Decode Pod must attempt none. */
    private static final Map<String, String> ANY_SAVE = Map.of("operation", "save_put");
    private static final Map<String, String> OK_LOAD = Map.of("operation", "load_get", "status", "ok");
    private static final String EXTERNAL_HITS = "vllm:external_prefix_cache_hits_total";
    private static final String TOKENS_BY_SOURCE = "vllm:prompt_tokens_by_source_total";
    private static final String CHARGED = "mooncake_tenant_quota_charged_bytes";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static Completion reference;

    private record Completion(int promptTokens, String text) {
    }

    /** The names of the Pods of Deployment {@code app} in {@code namespace}, oldest first. */
    private static List<String> vllmPods(String namespace, String app) {
        return cluster.kubectlOk("-n", namespace, "get", "pods", "-l", "app=" + app, "--sort-by=.metadata.name",
                "-o", "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}").lines().map(String::strip)
                .filter(s -> !s.isEmpty()).toList();
    }

    /** The prompt sent to the Pod's own OpenAI endpoint from inside the cluster's namespace. */
    private static Completion complete(String namespace, String pod) {
        String ip = cluster.kubectlOk("-n", namespace, "get", "pod", pod, "-o", "jsonpath={.status.podIP}").strip();
        String body = cluster.exec(List.of("curl", "-sS", "--fail-with-body", "--max-time", "240", "-H",
                "Content-Type: application/json", "--data-binary", "@-", "http://" + ip + ":8000/v1/completions"),
                CachePool.completionRequest(), Duration.ofMinutes(5)).requireSuccess("POST /v1/completions to "
                + namespace + "/" + pod).out();
        Map<String, Object> json = parse(body);
        @SuppressWarnings("unchecked")
        Map<String, Object> usage = (Map<String, Object>) json.get("usage");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> choices = (List<Map<String, Object>>) json.get("choices");
        return new Completion(((Number) usage.get("prompt_tokens")).intValue(), (String) choices.getFirst().get("text"));
    }

    private static MetricsSnapshot engine(String namespace, String pod) {
        String ip = cluster.kubectlOk("-n", namespace, "get", "pod", pod, "-o", "jsonpath={.status.podIP}").strip();
        return MetricsSnapshot.parse(cluster.exec(List.of("curl", "-sS", "--max-time", "20", "http://" + ip
                + ":8000/metrics"), "", Duration.ofSeconds(30)).requireSuccess("GET /metrics of " + pod).out());
    }

    private static MetricsSnapshot master() {
        return MetricsSnapshot.parse(cluster.exec(List.of("curl", "-sS", "--max-time", "20", "http://"
                + CachePool.MASTER_IP + ":9003/metrics"), "", Duration.ofSeconds(30))
                .requireSuccess("GET the master's /metrics").out());
    }

    /** The {@code sglang-probe: {json}} line of an SGLang Pod (tools/e2e/cache-images/sglang-probe.py). */
    private static Map<String, Object> probe(String namespace, String pod) {
        String[] line = new String[1];
        awaitTrue("the probe's line in the log of " + namespace + "/" + pod, Duration.ofMinutes(4), () -> {
            sleep(Duration.ofSeconds(1));
            line[0] = cluster.kubectl("-n", namespace, "logs", pod).out().lines()
                    .filter(l -> l.startsWith("sglang-probe: ")).findFirst().orElse(null);
            return line[0] != null;
        });
        return parse(line[0].substring("sglang-probe: ".length()));
    }

    private static Map<String, Object> parse(String json) {
        try {
            return JSON.readValue(json, new TypeReference<Map<String, Object>>() { });
        } catch (IOException e) {
            throw new AssertionError("not a JSON object: " + json, e);
        }
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Every {@code docs-test: node} block of a page, in order, as written. */
    private static void runNodeBlocks(String page, Duration budget) throws IOException {
        String text = Files.readString(repo.resolve(page));
        List<DocBlocks.Block> blocks = DocBlocks.parse(text, page).stream()
                .filter(b -> b.kind() == DocBlocks.Kind.NODE).toList();
        assertThat(blocks).as("the node blocks of " + page).isNotEmpty();
        Path dir = Files.createDirectories(work.resolve("docs").resolve(Path.of(page).getFileName().toString()));
        for (DocBlocks.Block b : blocks) {
            // the page's files (prompt.json) are written where a reader would work, never into the checkout
            NodeCluster.Result r = cluster.exec(List.of("bash", "-euo", "pipefail", "-c", "cd '" + dir + "'\n"
                    + b.text()), "", budget);
            assertThat(r.exit()).as("%s's block at line %d:\n%s\nprinted:\n%s%s", page, b.line(), b.text(), r.out(),
                    r.err()).isZero();
            REPORT.put(page + " line " + b.line(), r.out().strip().replace("\n", " | "));
        }
    }

    /**
     * What a kill -9 can cost and what it must not. Two kinds of create can fail, both closed (a 500 naming the
     * webhook; the client may send it again), because the API server never retries a POST:
     * <ul>
     *   <li>one whose review the dead process had read: its connection closes (EOF); it was in flight at the kill;</li>
     *   <li>one the API server sent on a new connection to the dead replica's own address, chosen while that address
     *   was still an endpoint of the Service (the kubelet has yet to see the container gone and the endpoint to turn
     *   unready): the dial is refused ({@code dial tcp <victim IP>:8443}), before the replica is Ready again.</li>
     * </ul>
     * Everything else must come back injected: a create answered uninjected, one failing otherwise, or one failing
     * after the replica is Ready again fails the test.
     */
    private static void assertOnlyInFlightFailedClosed(List<LoadLine> lines, long killFromMs, long killToMs,
                                                       String victimIp, long readyAgainMs) {
        assertThat(lines).as("creates sent during a kill -9 of one webhook container").hasSizeGreaterThan(100);
        List<LoadLine> failed = lines.stream().filter(l -> l.status() != 201 || !l.injected()).toList();
        // in flight at the kill: sent before it ended (plus the API server's own share of a create before it calls
        // the webhook) and not answered before it began
        List<LoadLine> inFlight = failed.stream().filter(l -> l.startMs() <= killToMs + IN_FLIGHT_SLACK_MS
                && l.startMs() + l.latencyMs() >= killFromMs).toList();
        List<LoadLine> dialledToTheDead = failed.stream().filter(l -> !inFlight.contains(l)
                && l.error().contains("dial tcp " + victimIp + ":") && l.startMs() >= killFromMs
                && l.startMs() <= readyAgainMs).toList();
        REPORT.put("kill -9: creates failed closed", failed.size() + " of " + lines.size() + " (" + inFlight.size()
                + " in flight at the kill, " + dialledToTheDead.size() + " dialled to the dead replica's address"
                + " before its endpoint was withdrawn)" + (failed.isEmpty() ? "" : ": " + failed));
        assertThat(failed).as("creates during a kill -9 (between %d and %d ms of the load) that were admitted"
                + " uninjected or failed without naming the webhook (start ms, latency ms, status, error)",
                killFromMs, killToMs).allSatisfy(l -> {
                    assertThat(l.status()).isEqualTo(500);
                    assertThat(l.error()).contains("inject.kvcache.kvcache-injector.io");
                });
        assertThat(failed).as("creates that failed during a kill -9 (between %d and %d ms of the load; the replica %s"
                + " Ready again at %d ms) although they were neither in flight at the kill nor dialled to the dead"
                + " replica before it was Ready again (start ms, latency ms, status, error)", killFromMs, killToMs,
                victimIp, readyAgainMs)
                .allSatisfy(l -> assertThat(inFlight.contains(l) || dialledToTheDead.contains(l)).isTrue());
    }

    // ------------------------------------------------------------------------------------------------ load

    private record LoadLine(long startMs, long latencyMs, int status, boolean injected, String error) {
        static LoadLine parse(String line) {
            String[] f = line.split(" ", 5);
            return new LoadLine(Long.parseLong(f[0]), Long.parseLong(f[1]), Integer.parseInt(f[2]),
                    Boolean.parseBoolean(f[3]), f.length > 4 ? f[4] : "");
        }
    }

    private record LoadRun(Process process, Path out, Path stopFile, Path log) {
        long startEpochMs() throws IOException {
            return Long.parseLong(Files.readString(Path.of(out + ".start")).strip());
        }

        List<LoadLine> stop() throws IOException, InterruptedException {
            Files.writeString(stopFile, "stop");
            if (!process.waitFor(90, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new AssertionError("the load generator did not end:\n" + Files.readString(log));
            }
            assertThat(process.exitValue()).as("the load generator's exit:\n%s", Files.readString(log)).isZero();
            return Files.readAllLines(out).stream().filter(l -> !l.isBlank()).map(LoadLine::parse).toList();
        }
    }

    private LoadRun startLoad(String name, int seconds) throws IOException, URISyntaxException {
        Path podJson = work.resolve(name + "-pod.json");
        Files.writeString(podJson, """
                {"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"load-","namespace":"team-a",
                 "labels":{"kvcache.gpustack.ai/inject":"true"},
                 "annotations":{"kvcache.gpustack.ai/binding":"chat","kvcache.gpustack.ai/engine":"vLLM"}},
                 "spec":{"containers":[{"name":"server","image":"%s","command":["vllm"],
                 "args":["serve","--model","Qwen/Qwen3-8B"]}]}}
                """.formatted(STUB));
        Path out = work.resolve(name + "-load.txt");
        Path stop = work.resolve(name + "-load.stop");
        Path log = work.resolve(name + "-load.log");
        String java = ProcessHandle.current().info().command().orElse("java");
        String classes = Path.of(NodeLoad.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        Process p = cluster.spawn(List.of(java, "-cp", classes, NodeLoad.class.getName(),
                cluster.kubeconfig().toString(), "team-a", podJson.toString(), Double.toString(LOAD_RATE),
                Integer.toString(seconds), out.toString(), stop.toString()), log);
        return new LoadRun(p, out, stop, log);
    }

    private static void assertNothingLost(String what, List<LoadLine> lines) {
        List<LoadLine> lost = lines.stream().filter(l -> l.status() != 201 || !l.injected()).toList();
        assertThat(lines).as("creates sent during %s", what).hasSizeGreaterThan(100);
        assertThat(lost).as("creates during %s that did not come back injected (of %d): start ms, latency ms,"
                + " status, error", what, lines.size()).isEmpty();
    }

    private static void reportLoad(String what, List<LoadLine> lines, MetricsSnapshot before, MetricsSnapshot after) {
        long ok = lines.stream().filter(l -> l.status() == 201 && l.injected()).count();
        List<Long> latencies = lines.stream().map(LoadLine::latencyMs).sorted().toList();
        REPORT.put(what + ": creates injected", ok + "/" + lines.size() + " at " + LOAD_RATE + "/s");
        if (!latencies.isEmpty()) {
            REPORT.put(what + ": create latency at the client (p50/p99/max)", latencies.get(latencies.size() / 2)
                    + "/" + latencies.get((int) Math.min(latencies.size() - 1, Math.round(latencies.size() * 0.99)))
                    + "/" + latencies.getLast() + " ms");
        }
        Map<String, String> inject = Map.of("name", "inject.kvcache.kvcache-injector.io", "operation", "CREATE",
                "type", "admit");
        REPORT.put(what + ": apiserver_admission_webhook_admission_duration_seconds (inject, p50/p99)",
                after.quantile(MetricsSnapshot.DURATION, inject, before, 0.5) + "/"
                        + after.quantile(MetricsSnapshot.DURATION, inject, before, 0.99) + " s over "
                        + (long) (after.total(MetricsSnapshot.DURATION + "_count", inject)
                        - before.total(MetricsSnapshot.DURATION + "_count", inject)) + " calls");
    }

    private static MetricsSnapshot apiServerMetrics() {
        return MetricsSnapshot.parse(cluster.kubectlOk("get", "--raw", "/metrics"));
    }

    // ------------------------------------------------------------------------------------------------ memory

    private record MemorySample(String pod, long usage, long workingSet, long peak, long limit) {
    }

    private static void sampleMemoryFor(Duration duration, List<MemorySample> samples) {
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < end) {
            for (WebhookPod p : webhookPods()) {
                if (p.containerId().isEmpty()) {
                    continue;
                }
                cluster.memoryCgroup(p.containerId()).ifPresent(cg -> {
                    try {
                        long usage = number(cg.resolve("memory.usage_in_bytes"));
                        long inactive = statField(cg.resolve("memory.stat"), "total_inactive_file");
                        samples.add(new MemorySample(p.name(), usage, usage - inactive,
                                number(cg.resolve("memory.max_usage_in_bytes")),
                                number(cg.resolve("memory.limit_in_bytes"))));
                    } catch (IOException | RuntimeException e) {
                        // the container was replaced between listing and reading
                    }
                });
            }
            sleep(Duration.ofSeconds(1));
        }
    }

    private static void reportMemory(List<MemorySample> samples) {
        assertThat(samples).as("memory samples of the webhook containers' cgroups").isNotEmpty();
        long limit = samples.getFirst().limit();
        long maxWorkingSet = samples.stream().mapToLong(MemorySample::workingSet).max().orElseThrow();
        long peak = samples.stream().mapToLong(MemorySample::peak).max().orElseThrow();
        List<Long> ws = samples.stream().map(MemorySample::workingSet).sorted().toList();
        REPORT.put("webhook container memory under load (cgroup working set median/max, peak usage; limit)",
                mib(ws.get(ws.size() / 2)) + "/" + mib(maxWorkingSet) + ", " + mib(peak) + "; limit " + mib(limit)
                        + " (request 176Mi), " + samples.size() + " samples");
        assertThat(limit).as("the chart's memory limit as the container's cgroup limit").isEqualTo(320L << 20);
        assertThat(maxWorkingSet).as("the webhook's working set stays inside the chart's limit").isLessThan(limit);
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    private static long number(Path file) throws IOException {
        return Long.parseLong(Files.readString(file).strip());
    }

    private static long statField(Path file, String field) throws IOException {
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith(field + " ")) {
                return Long.parseLong(line.substring(field.length() + 1).strip());
            }
        }
        return 0;
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private record WebhookPod(String name, String containerId, int restarts, boolean ready) {
    }

    private static List<WebhookPod> webhookPods() {
        String out = cluster.kubectlOk("-n", SYSTEM, "get", "pods", "-l", WEBHOOK_SELECTOR, "-o",
                "jsonpath={range .items[*]}{.metadata.name}"
                        + " {.status.containerStatuses[0].containerID} {.status.containerStatuses[0].restartCount}"
                        + " {.status.containerStatuses[0].ready} {.metadata.deletionTimestamp}\n{end}");
        List<WebhookPod> pods = new ArrayList<>();
        for (String line : out.lines().toList()) {
            String[] f = line.trim().split(" ");
            if (f.length < 4 || f.length > 4) {
                continue; // no status yet, or terminating (a deletionTimestamp)
            }
            pods.add(new WebhookPod(f[0], f[1].replaceFirst("^containerd://", ""), Integer.parseInt(f[2]),
                    Boolean.parseBoolean(f[3])));
        }
        return pods;
    }

    /** The webhook replica with the most established connections from the API server (inside the namespace). */
    private static WebhookPod connectedWebhookPod() {
        Map<String, String> byIp = new LinkedHashMap<>();
        for (String line : cluster.kubectlOk("-n", SYSTEM, "get", "pods", "-l", WEBHOOK_SELECTOR, "-o",
                "jsonpath={range .items[*]}{.status.podIP} {.metadata.name}\n{end}").lines().toList()) {
            String[] f = line.trim().split(" ");
            if (f.length == 2) {
                byIp.put(f[0], f[1]);
            }
        }
        Map<String, Integer> connections = new LinkedHashMap<>();
        String ss = cluster.exec(List.of("ss", "-tnH", "state", "established", "( dport = :8443 )"), "",
                Duration.ofSeconds(20)).requireSuccess("ss").out();
        for (String line : ss.lines().toList()) {
            String[] f = line.trim().split("\\s+");
            String peer = f[f.length - 1];
            String ip = peer.substring(0, peer.lastIndexOf(':'));
            if (byIp.containsKey(ip)) {
                connections.merge(byIp.get(ip), 1, Integer::sum);
            }
        }
        String name = connections.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                .orElseThrow(() -> new AssertionError("no connection to a webhook replica while under load:\n" + ss));
        return webhookPods().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    /** Waits until one Pod matching {@code selector} runs with its container started; its name. */
    private static String awaitRunning(String namespace, String selector) {
        return awaitRunning(namespace, selector, "");
    }

    private static String awaitRunning(String namespace, String selector, String name) {
        String[] found = new String[1];
        awaitTrue("a running Pod " + (name.isEmpty() ? selector : name) + " in " + namespace, Duration.ofMinutes(2),
                () -> {
                    NodeCluster.Result r = name.isEmpty()
                            ? cluster.kubectl("-n", namespace, "get", "pods", "-l", selector, "-o",
                                    "jsonpath={range .items[*]}{.metadata.name} {.status.phase}"
                                            + " {.status.containerStatuses[0].started}\n{end}")
                            : cluster.kubectl("-n", namespace, "get", "pod", name, "-o",
                                    "jsonpath={.metadata.name} {.status.phase} {.status.containerStatuses[0].started}");
                    for (String line : r.out().lines().toList()) {
                        String[] f = line.trim().split(" ");
                        if (f.length == 3 && f[1].equals("Running") && f[2].equals("true")) {
                            found[0] = f[0];
                            return true;
                        }
                    }
                    return false;
                });
        return found[0];
    }

    /** What the stub engine printed about its container (tools/e2e/images/cmd/stub). */
    private record StubReport(List<String> argv, Map<String, String> env, Map<String, String> files,
                              String reverseLookup) {
    }

    private static StubReport stubReport(String namespace, String pod) {
        String[] logs = new String[1];
        awaitTrue("the stub's report in the logs of " + namespace + "/" + pod, Duration.ofSeconds(30), () -> {
            logs[0] = cluster.kubectl("-n", namespace, "logs", pod).out();
            return logs[0].contains("stub: ready");
        });
        List<String> argv = List.of();
        Map<String, String> env = new LinkedHashMap<>();
        Map<String, String> files = new LinkedHashMap<>();
        String reverseLookup = "";
        for (String line : logs[0].lines().toList()) {
            String[] f = line.split(" ");
            if (f.length >= 3 && f[1].equals("argv")) {
                argv = List.of(decode(f[2]).split("\0"));
            } else if (f.length >= 3 && f[1].equals("env")) {
                String kv = decode(f[2]);
                env.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            } else if (f.length >= 4 && f[1].equals("file")) {
                files.put(decode(f[2]), decode(f[3]));
            } else if (f.length >= 3 && f[1].equals("reverse-lookup")) {
                reverseLookup = decode(f[2]);
            }
        }
        return new StubReport(argv, env, files, reverseLookup);
    }

    private static List<String> stagedFiles(String namespace, String pod) {
        return cluster.kubectl("-n", namespace, "logs", pod).out().lines().map(l -> l.split(" "))
                .filter(f -> f.length == 3 && f[1].equals("staged")).map(f -> decode(f[2])).toList();
    }

    private static String decode(String b64) {
        return new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
    }

    private static String vllmPod(String name, Map<String, String> extraAnnotations) {
        StringBuilder annotations = new StringBuilder();
        extraAnnotations.forEach((k, v) -> annotations.append("    ").append(k).append(": '").append(v).append("'\n"));
        return """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: team-a
                  labels:
                    app: %s
                    kvcache.gpustack.ai/inject: "true"
                  annotations:
                    kvcache.gpustack.ai/binding: chat
                    kvcache.gpustack.ai/engine: vLLM
                %sspec:
                  terminationGracePeriodSeconds: 2
                  containers:
                    - name: server
                      image: %s
                      imagePullPolicy: Never
                      command: ["vllm"]
                      args: ["serve", "--model", "Qwen/Qwen3-8B"]
                """.formatted(name, name, annotations, STUB);
    }

    /** A one-replica Deployment whose template is {@code pod} (a Pod manifest of {@link #vllmPod}). */
    private static String deployment(String name, String pod) {
        String template = pod.substring(pod.indexOf("metadata:")).replace("  name: " + name + "\n", "")
                .replace("  namespace: team-a\n", "").indent(4);
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: %s
                  namespace: team-a
                spec:
                  replicas: 1
                  selector:
                    matchLabels:
                      app: %s
                  template:
                %s""".formatted(name, name, template);
    }

    private static void runTutorialBlockContaining(String tutorial, String text) {
        DocBlocks.Block block = DocBlocks.parse(tutorial, "install-and-first-pod.md").stream()
                .filter(b -> b.kind() == DocBlocks.Kind.RUN && b.text().contains(text)).findFirst().orElseThrow();
        NodeCluster.Result r = cluster.exec(List.of("bash", "-euo", "pipefail", "-c", block.text()), "",
                Duration.ofMinutes(2));
        assertThat(r.exit()).as("the tutorial's block at line %d printed:\n%s%s", block.line(), r.out(), r.err())
                .isZero();
    }

    private static String run(List<String> command, Duration timeout) {
        return E2eSupport.run(repo, command, timeout);
    }

    /** The effective uid of this process, -1 when {@code id -u} cannot say (AdmissionLatencyBench uses it too). */
    static long uid() {
        try {
            Process p = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            return p.waitFor() == 0 ? Long.parseLong(out) : -1;
        } catch (IOException | NumberFormatException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static void awaitTrue(String what, Duration budget, Supplier<Boolean> done) {
        E2eSupport.await(what, budget, done);
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
