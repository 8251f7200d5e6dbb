package io.kvcacheinjector.app.e2e;

import static io.kvcacheinjector.app.e2e.E2eObjects.FULLNAME;
import static io.kvcacheinjector.app.e2e.E2eObjects.NAMESPACE;
import static io.kvcacheinjector.app.e2e.E2eObjects.RELEASE;
import static io.kvcacheinjector.app.e2e.E2eObjects.RELEASE_NAMESPACE;
import static io.kvcacheinjector.app.e2e.E2eObjects.SETTINGS_NAMESPACE;
import static io.kvcacheinjector.app.e2e.E2eSupport.awaitCrdsEstablished;
import static io.kvcacheinjector.app.e2e.E2eSupport.chartDir;
import static io.kvcacheinjector.app.e2e.E2eSupport.createExampleCluster;
import static io.kvcacheinjector.app.e2e.E2eSupport.deleteRecursively;
import static io.kvcacheinjector.app.e2e.E2eSupport.since;
import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How the webhook's start and memory grow with the cluster: a real kube-apiserver and etcd, the chart installed by
 * Helm, and {@code serve} started with the JVM options the chart's Deployment runs it with (read back from the
 * installed Deployment: its {@code java} options, with {@code -XX:MaxRAM} set to the container's memory limit as the
 * container would impose it), once per cluster size: the example cluster plus 0, 1 000 and (with
 * {@code -Dkvcache.scale.large=true}) 10 000 Bindings, each with its own pool.
 *
 * <p>{@code serve} gets the chart's switches that apply outside a Pod too ({@code --reconcile-cacheblend} by default:
 * the CacheBlendEngine controller runs in the same process, as in the chart). For each size it prints the time from
 * launching the JVM to the first {@code /readyz} 200 (every informer has listed) and the CPU time the process had
 * used by then (what a busy machine does not inflate), the resident set a few seconds after that, and the resident set after a burst of reviews
 * ({@value #BURST} AdmissionReviews of the bench mix, {@value #BURST_CONNECTIONS} at a time). It asserts only what a
 * user would notice — the webhook becomes ready and answers every review of the burst correctly — never a time or a
 * size: the numbers are a measurement (docs/explanation/performance-log.md, "Scale").
 *
 * <p>{@code -Dkvcache.scale.sizes=0,1000} chooses other sizes; {@code -Dkvcache.scale.jvmOptions="..."} adds JVM
 * options after the chart's (to compare a lever); {@code -Dkvcache.scale.baselineJar=PATH} measures that jar (with
 * its {@code engines/} folder beside it) before this one at every size, so that both see the same machine.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class ScaleE2E {
    private static final int BURST = 2_000;
    private static final int BURST_CONNECTIONS = 8;
    private static final int CREATORS = 8;
    private static final Duration SETTLE = Duration.ofSeconds(3);

    private static Path workDir;
    private static Path jar;
    private static ControlPlane controlPlane;
    private static KubernetesClient admin;
    private static SelfSignedCertificate certificate;
    private static int webhookPort;
    private static String kubeconfig;
    private static Deployment chartDeployment;
    private static boolean skipped;

    @BeforeAll
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // a cold provisioning builds both binaries
    static void startTheControlPlaneAndInstallTheChart() throws IOException {
        Path repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        jar = Path.of(System.getProperty("kvcache.e2e.jar", "target/kvcache-injector.jar")).toAbsolutePath();
        ControlPlaneBinaries.Found found = ControlPlaneBinaries.locate(repo, System.getenv());
        if (found instanceof ControlPlaneBinaries.Unavailable unavailable) {
            skipped = true;
            System.out.println("e2e: SKIPPED: " + unavailable.reason());
            Assumptions.abort(unavailable.reason());
        }
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the built jar " + jar + " is missing; build it with bin/mvn -pl app -am"
                    + " package -DskipTests");
        }
        workDir = Files.createTempDirectory("kvcache-scale");
        controlPlane = ControlPlane.start(((ControlPlaneBinaries.Available) found).dir(), workDir);
        admin = controlPlane.adminClient();
        for (String ns : List.of(RELEASE_NAMESPACE, SETTINGS_NAMESPACE, NAMESPACE)) {
            admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
                    .create();
        }
        certificate = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
        webhookPort = ControlPlane.freePorts(1)[0];
        new Helm(chartDir(repo)).install().withName(RELEASE).withNamespace(RELEASE_NAMESPACE)
                .withKubeConfigContents(controlPlane.kubeconfig(ControlPlane.ADMIN_TOKEN, "e2e-admin"))
                .set("webhook.url", "https://127.0.0.1:" + webhookPort) // loopback only
                .set("webhook.caBundle", Base64.getEncoder().encodeToString(
                        certificate.caPem().getBytes(StandardCharsets.US_ASCII)))
                .set("settings.namespace", SETTINGS_NAMESPACE)
                .call();
        awaitCrdsEstablished(admin);
        createExampleCluster(admin);
        String token = admin.serviceAccounts().inNamespace(RELEASE_NAMESPACE).withName(FULLNAME)
                .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
                .getStatus().getToken();
        kubeconfig = controlPlane.kubeconfig(token, FULLNAME);
        chartDeployment = admin.apps().deployments().inNamespace(RELEASE_NAMESPACE).withName(FULLNAME).get();
        makeTheAotCacheLikeTheImageBuild(repo, jar);
        Optional.ofNullable(System.getProperty("kvcache.scale.baselineJar")).filter(p -> !p.isBlank())
                .ifPresent(p -> makeTheAotCacheLikeTheImageBuild(repo, Path.of(p)));
        System.out.println("e2e: scale: JVM options (the chart's Deployment): "
                + String.join(" ", chartJvmOptions(chartDeployment, jar.getParent())) + "; serve switches: "
                + String.join(" ", chartServeSwitches(chartDeployment)) + "; environment: "
                + chartEnvironment(chartDeployment, "scale-" + ProcessHandle.current().pid()));
    }

    @AfterAll
    static void stopEverything() {
        if (skipped) {
            return;
        }
        if (admin != null) {
            admin.close();
        }
        if (controlPlane != null) {
            controlPlane.close();
        }
        if (workDir != null && !Boolean.getBoolean("kvcache.e2e.keep")) {
            deleteRecursively(workDir);
        }
    }

    @Test
    void readinessAndMemoryGrowWithTheBindingsInTheCluster() throws Exception {
        List<Integer> sizes = sizes();
        Optional<Path> baselineJar = Optional.ofNullable(System.getProperty("kvcache.scale.baselineJar"))
                .filter(p -> !p.isBlank()).map(Path::of);
        List<String> rows = new ArrayList<>();
        int created = 0;
        for (int size : sizes) {
            long t = System.nanoTime();
            createBindings(created, size);
            System.out.printf(Locale.ROOT, "e2e: scale: %d Bindings and %d pools created in %s%n", size - created,
                    size - created, Timings.format(since(t)));
            created = size;
            if (baselineJar.isPresent()) { // the same size with the other jar first: the machine's load hits both
                rows.add("baseline " + measure(size, baselineJar.get()));
                rows.add("this jar " + measure(size, jar));
            } else {
                rows.add(measure(size, jar));
            }
        }
        System.out.println("e2e: scale: Bindings (besides the example's 2) | /readyz after launch"
                + " | CPU time of the process by then | RSS settled"
                + " | RSS after the burst | of which anonymous | heap used after a full GC / committed | threads"
                + " | burst reviews/s");
        rows.forEach(r -> System.out.println("e2e: scale: " + r));
    }

    private static List<Integer> sizes() {
        String given = System.getProperty("kvcache.scale.sizes", "");
        if (!given.isBlank()) {
            return Arrays.stream(given.split(",")).map(String::strip).map(Integer::valueOf).sorted().toList();
        }
        return Boolean.getBoolean("kvcache.scale.large") ? List.of(0, 1_000, 10_000) : List.of(0, 1_000);
    }

    /** Starts {@code serve}, times its readiness, reads its memory settled and after a burst; one table row. */
    private static String measure(int size, Path jar) throws Exception {
        List<String> options = chartJvmOptions(chartDeployment, jar.getParent());
        String extra = System.getProperty("kvcache.scale.jvmOptions", "");
        if (!extra.isBlank()) {
            options.addAll(Arrays.asList(extra.strip().split("\\s+")));
        }
        List<String> flags = chartServeSwitches(chartDeployment);
        Path dir = workDir.resolve("webhook-" + size + "-" + System.nanoTime());
        Path classes = dir.resolve("classes.log");
        // -Dkvcache.scale.jvmOptions=-XX:AOTMode=off measures the same options without the cache
        boolean aotCache = options.stream().anyMatch(o -> o.startsWith("-XX:AOTCache="))
                && !options.contains("-XX:AOTMode=off");
        if (aotCache) { // where each class came from: the cache, or the jar (read below)
            options.add("-Xlog:class+load=info:file=" + classes);
        }
        long launched = System.nanoTime();
        try (WebhookProcess webhook = WebhookProcess.start(jar, dir, certificate,
                webhookPort, kubeconfig, RELEASE_NAMESPACE, SETTINGS_NAMESPACE, options, flags,
                chartEnvironment(chartDeployment, "scale-" + ProcessHandle.current().pid()))) {
            Duration ready = since(launched);
            long cpuToReady = cpuMillis(webhook.pid()); // robust where the wall time is not: the machine is shared
            if (aotCache && jar.equals(ScaleE2E.jar)) {
                assertTheInformerPathCameFromTheCache(classes);
            }
            if (Boolean.getBoolean("kvcache.scale.threadCpu")) {
                System.out.println("e2e: scale: CPU by thread at readiness: " + cpuByThread(webhook.pid()));
            }
            Thread.sleep(SETTLE.toMillis());
            long settled = residentMiB(webhook.pid());
            long burstStart = System.nanoTime();
            int answered = burst(webhook);
            Duration burstTook = since(burstStart);
            Thread.sleep(SETTLE.toMillis());
            long afterBurst = residentMiB(webhook.pid());
            long anonymous = statusField(webhook.pid(), "RssAnon:") / 1024;
            long threads = threads(webhook.pid());
            if (Boolean.getBoolean("kvcache.scale.threadCpu")) {
                System.out.println("e2e: scale: threads after the burst by name: " + threadsByName(webhook.pid()));
                System.out.println("e2e: scale: resident after the burst by mapping: " + residentByMapping(webhook.pid()));
            }
            String liveHeap = heapAfterFullGc(webhook.pid());
            assertThat(answered).as("reviews of the burst answered correctly with %d Bindings", size)
                    .isEqualTo(BURST);
            String row = String.format(Locale.ROOT, "%,6d | %6d ms | %6d ms | %4d MiB | %4d MiB | %4d MiB | %s | %3d"
                    + " | %,.0f", size, ready.toMillis(), cpuToReady, settled, afterBurst, anonymous, liveHeap, threads,
                    BURST / (burstTook.toNanos() / 1e9));
            System.out.println("e2e: scale: " + row);
            return row;
        }
    }

    /**
     * The image build's training run ({@code aot-training}, here by deploy/aot-cache.sh) took the path {@code serve}
     * takes against an API server: most classes of fabric8's informers, its JDK HTTP client, Guice and the Operator SDK
     * that {@code serve} loaded by the time it was ready came from the AOT cache, not from the jar. Without that the
     * cache still works, and {@code serve} silently starts seconds slower in a cluster.
     */
    private static void assertTheInformerPathCameFromTheCache(Path classes) throws IOException {
        List<String> lines = Files.readAllLines(classes);
        for (String prefix : List.of(" io.fabric8.kubernetes.client.informers.", " io.fabric8.kubernetes.client.jdkhttp.",
                " com.google.inject.internal.", " io.kvcacheinjector.adapters.k8s.informer.")) {
            List<String> loaded = lines.stream().filter(l -> l.contains(prefix)).toList();
            long cached = loaded.stream().filter(l -> l.contains("source: shared objects file")).count();
            System.out.printf(Locale.ROOT, "e2e: scale: classes%s* loaded by readiness: %d, from the AOT cache: %d%n",
                    prefix, loaded.size(), cached);
            assertThat(loaded).as("classes%s* loaded by serve", prefix).isNotEmpty();
            assertThat(cached).as("classes%s* from the AOT cache (the training run covers the informer path);"
                    + " of %s", prefix, loaded.size()).isGreaterThan(loaded.size() * 3L / 4);
        }
    }

    /** One review of the bench's HTTP mix, read from the bench module (app's tests cannot depend on it). */
    private record MixReview(String name, byte[] body, boolean admitted) {
        /** Why {@code response} is not this review's answer (a JSON Patch, or the refusal); empty when it is. */
        Optional<String> mismatch(byte[] response) throws IOException {
            var r = new com.fasterxml.jackson.databind.ObjectMapper().readTree(response).path("response");
            boolean right = admitted ? r.path("allowed").asBoolean(false) && !r.path("patch").asText("").isEmpty()
                    : !r.path("allowed").asBoolean(true);
            return right ? Optional.empty() : Optional.of(name + ": " + (admitted ? "expected a patch" : "expected a"
                    + " refusal") + ", got " + new String(response, java.nio.charset.StandardCharsets.UTF_8));
        }

        String path() {
            return "kvcache/mutate";
        }
    }

    /** bench's HTTP mix (BenchReview.httpMix): three Pods the kvcache webhook patches, one it refuses. */
    private static List<MixReview> httpMix() throws IOException {
        Path dir = Path.of(System.getProperty("kvcache.e2e.repo", "..")).resolve(
                "app/src/main/resources/io/kvcacheinjector/app/serve/warmup/reviews");
        List<MixReview> mix = new ArrayList<>();
        for (String name : List.of("vllm", "sglang", "wide", "refused")) {
            mix.add(new MixReview(name, Files.readAllBytes(dir.resolve(name + ".json")), !name.equals("refused")));
        }
        return mix;
    }

    /** Sends the bench's review mix to the webhook, {@value #BURST_CONNECTIONS} at a time; the correct answers. */
    private static int burst(WebhookProcess webhook) throws Exception {
        List<MixReview> mix = httpMix();
        HttpClient http = HttpClient.newBuilder().sslContext(ControlPlane.trusting(certificate.caPem()))
                .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger correct = new AtomicInteger();
        List<String> wrong = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(BURST_CONNECTIONS)) {
            List<Future<?>> workers = new ArrayList<>();
            for (int c = 0; c < BURST_CONNECTIONS; c++) {
                workers.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < BURST; i = next.getAndIncrement()) {
                        MixReview review = mix.get(i % mix.size());
                        HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(
                                        URI.create(webhook.url() + "/" + review.path()))
                                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofByteArray(review.body())).build(),
                                HttpResponse.BodyHandlers.ofByteArray());
                        Optional<String> mismatch = r.statusCode() == 200 ? review.mismatch(r.body())
                                : Optional.of(review.name() + ": HTTP " + r.statusCode());
                        if (mismatch.isEmpty()) {
                            correct.incrementAndGet();
                        } else if (wrong.size() < 3) {
                            wrong.add(mismatch.get());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get();
            }
        }
        wrong.forEach(w -> System.out.println("e2e: scale: wrong answer: " + w));
        return correct.get();
    }

    /** Creates Bindings {@code scale-<from>} .. {@code scale-<to - 1>} in {@value E2eObjects#NAMESPACE}, each with its pool. */
    private static void createBindings(int from, int to) throws Exception {
        AtomicInteger next = new AtomicInteger(from);
        try (ExecutorService pool = Executors.newFixedThreadPool(CREATORS)) {
            List<Future<?>> workers = new ArrayList<>();
            for (int c = 0; c < CREATORS; c++) {
                workers.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < to; i = next.getAndIncrement()) {
                        admin.resource(E2eObjects.pool("scale-" + i, "mc", "mc-leader.kv.svc:50051")).create();
                        admin.resource(E2eObjects.binding("scale-" + i, "scale-" + i, "team-a-scale-" + i, false))
                                .create();
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get();
            }
        }
    }

    /**
     * When the chart starts the JVM with the image's AOT cache, makes that cache beside {@code jar} (unless one newer
     * than the jar is there) with deploy/aot-cache.sh and the chart's other options, as deploy/Dockerfile does.
     */
    private static void makeTheAotCacheLikeTheImageBuild(Path repo, Path jar) {
        List<String> options = new ArrayList<>();
        boolean wanted = false;
        for (String option : chartCommandOptions(chartDeployment)) {
            if (option.startsWith("-XX:AOTCache=")) {
                wanted = true;
            } else {
                options.add(option);
            }
        }
        Path cache = jar.resolveSibling("kvcache-injector.aot");
        try {
            if (!wanted || Files.isRegularFile(cache)
                    && Files.getLastModifiedTime(cache).compareTo(Files.getLastModifiedTime(jar)) > 0) {
                return;
            }
            List<String> command = new ArrayList<>(List.of(repo.resolve("deploy/aot-cache.sh").toString(),
                    jar.toString(), cache.toString()));
            command.addAll(options);
            long t = System.nanoTime();
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(workDir.resolve("aot-cache.log").toFile());
            builder.environment().put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
            int status = builder.start().waitFor();
            System.out.println("e2e: scale: deploy/aot-cache.sh for " + jar + ": exit " + status + " after "
                    + Timings.format(since(t)));
            if (status != 0) { // a broken training run must not pass as a slower start
                throw new IllegalStateException("deploy/aot-cache.sh failed for " + jar + " (exit " + status + "):\n"
                        + Files.readString(workDir.resolve("aot-cache.log")));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The switches among the chart's {@code serve} arguments that apply outside the Pod as well (by default
     * {@code --reconcile-cacheblend}: the CacheBlendEngine controller starts in the same process), less those named
     * in {@code -Dkvcache.scale.dropFlags} (comma-separated), to measure what one costs.
     */
    static List<String> chartServeSwitches(Deployment deployment) {
        List<String> args = deployment.getSpec().getTemplate().getSpec().getContainers().getFirst().getArgs();
        List<String> dropped = Arrays.asList(System.getProperty("kvcache.scale.dropFlags", "").split(","));
        return args.stream().filter(a -> List.of("--reconcile-cacheblend", "--disable-cacheblend",
                "--cacheblend-fail-closed").contains(a)).filter(a -> !dropped.contains(a)).toList();
    }

    /**
     * The environment the chart gives the webhook container with literal values ({@code MALLOC_ARENA_MAX}), and
     * {@code POD_NAME} (the chart takes it from the Pod's name) as {@code podName}.
     */
    static Map<String, String> chartEnvironment(Deployment deployment, String podName) {
        Map<String, String> env = new java.util.TreeMap<>();
        for (var v : deployment.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv()) {
            if (v.getValue() != null) {
                env.put(v.getName(), v.getValue());
            }
        }
        env.put("POD_NAME", podName);
        return env;
    }

    /** The options between {@code java} and {@code -jar} of the chart's webhook container, as rendered. */
    private static List<String> chartCommandOptions(Deployment deployment) {
        List<String> command = deployment.getSpec().getTemplate().getSpec().getContainers().getFirst().getCommand();
        return command.subList(1, command.indexOf("-jar"));
    }

    /**
     * The options between {@code java} and {@code -jar} of the chart's webhook container, with {@code -XX:MaxRAM} set
     * to the container's memory limit (what the JVM would see in the container), and a path under {@code /app/}
     * (the image's folder) resolved in the jar's folder instead; an option naming such a file that is not there (an
     * AOT cache the image build makes) is left out, and said so.
     */
    static List<String> chartJvmOptions(Deployment deployment, Path jarDir) {
        Container webhook = deployment.getSpec().getTemplate().getSpec().getContainers().getFirst();
        List<String> options = new ArrayList<>();
        Quantity limit = webhook.getResources().getLimits().get("memory");
        if (limit != null) {
            options.add("-XX:MaxRAM=" + (Quantity.getAmountInBytes(limit).longValue() / (1024 * 1024)) + "m");
        }
        for (String option : chartCommandOptions(deployment)) {
            int app = option.indexOf("/app/");
            if (app >= 0) {
                Path local = jarDir.resolve(option.substring(app + "/app/".length()));
                if (!Files.exists(local)) {
                    System.out.println("e2e: scale: left out " + option + " (no " + local + ")");
                    continue;
                }
                option = option.substring(0, app) + local;
            }
            options.add(option);
        }
        return options;
    }

    /**
     * {@code used / committed MiB} of the heap after {@code jcmd GC.run} (after the RSS was read, so that the forced
     * collection does not change it); {@code n/a} without jcmd.
     */
    private static String heapAfterFullGc(long pid) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            return "n/a";
        }
        try {
            run(List.of(jcmd.toString(), Long.toString(pid), "GC.run"));
            String info = run(List.of(jcmd.toString(), Long.toString(pid), "GC.heap_info"));
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("total (\\d+)K, used (\\d+)K")
                    .matcher(info);
            long total = 0;
            long used = 0;
            while (m.find()) { // Serial prints one line per generation; G1 one for the heap
                total += Long.parseLong(m.group(1));
                used += Long.parseLong(m.group(2));
            }
            return total == 0 ? "n/a" : (used / 1024) + " / " + (total / 1024) + " MiB";
        } catch (IOException e) {
            return "n/a";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "n/a";
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

    /** User and system CPU time of the process so far (/proc/PID/stat, in clock ticks of 10 ms). */
    private static long cpuMillis(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10; // utime, stime: fields 14 and 15
    }

    /** CPU milliseconds per thread name (JIT compiler threads and the like summed), largest first. */
    private static String cpuByThread(long pid) throws IOException {
        java.util.Map<String, Long> byName = new java.util.TreeMap<>();
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("[0-9]+$", "#");
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    byName.merge(name, (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10, Long::sum);
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return byName.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> e.getKey() + " " + e.getValue() + " ms").collect(java.util.stream.Collectors.joining(", "));
    }

    /** The threads by name (trailing numbers as {@code #}), most first: what each library runs. */
    private static String threadsByName(long pid) throws IOException {
        java.util.Map<String, Long> byName = new java.util.TreeMap<>();
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    byName.merge(Files.readString(task.resolve("comm")).strip().replaceAll("[0-9]+$", "#"), 1L,
                            Long::sum);
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return byName.entrySet().stream()
                .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> e.getKey() + " ×" + e.getValue()).collect(java.util.stream.Collectors.joining(", "));
    }

    /**
     * The resident set by mapping ({@code /proc/PID/smaps}): file-backed mappings by file name, anonymous ones by
     * size class, largest first — where the megabytes outside NMT's categories lie (the AOT cache, libjvm, the jar).
     */
    private static String residentByMapping(long pid) throws IOException {
        java.util.Map<String, Long> kib = new java.util.HashMap<>();
        String current = "?";
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps"))) {
            String[] f = line.strip().split("\\s+");
            if (f.length >= 5 && f[0].contains("-") && f[0].matches("[0-9a-f]+-[0-9a-f]+")) {
                String[] range = f[0].split("-");
                long size = (Long.parseUnsignedLong(range[1], 16) - Long.parseUnsignedLong(range[0], 16)) >> 20;
                current = f.length >= 6 ? Path.of(f[5]).getFileName() + "" : "anonymous " + (size >= 64 ? "≥64"
                        : size >= 1 ? "1-63" : "<1") + " MiB";
            } else if (f[0].equals("Rss:")) {
                kib.merge(current, Long.parseLong(f[1]), Long::sum);
            }
        }
        return kib.entrySet().stream().filter(e -> e.getValue() >= 1024)
                .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> e.getKey() + " " + e.getValue() / 1024 + " MiB")
                .collect(java.util.stream.Collectors.joining(", "));
    }

    private static long residentMiB(long pid) throws IOException {
        return statusField(pid, "VmRSS:") / 1024;
    }

    private static long threads(long pid) throws IOException {
        return statusField(pid, "Threads:");
    }

    private static long statusField(long pid, String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.substring(field.length()).strip().split("\\s+")[0]);
            }
        }
        return -1;
    }
}
