package io.kvcacheinjector.app.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvcacheinjector.adapters.http.telemetry.AdmissionMetrics;
import io.kvcacheinjector.domain.Webhook;
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
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 32's side-by-side benchmark: admission latency as the API server sees it, for this webhook and for a
 * trivial one, on one real node at the same time. Not a test: it prints numbers and asserts only that the set-up did
 * what it says (both webhooks installed and marking a dry-run create, every create of ours answered 201 carrying our
 * record; creates an overloaded node does not answer 201 are counted in the table, not failed on).
 *
 * <p>The node is {@code tools/e2e/cluster.sh}'s (as {@link NodeE2E}'s). On it: the project's image installed by the
 * tutorial's {@code helm install} (two replicas, the chart's defaults) with the tutorial's pool and Binding; beside
 * it {@code kvci.local/trivial-webhook:1} (tools/e2e/images/cmd/trivialwebhook: Go's standard library, decode, one
 * annotation and one env var, encode, one log line; one replica behind its own Service, registered with
 * {@code failurePolicy: Fail} for Pods labelled {@code trivial: "true"}). Two {@link NodeLoad} clients, one per
 * webhook, send dry-run Pod creates through the API server at the same rate at the same time: a warm-up of
 * {@code -Dkvcache.bench.warmup} seconds (default 60) at the first rate, 30 s at rest, then each rate in
 * {@code -Dkvcache.bench.rates} (default 10,50) for {@code -Dkvcache.bench.seconds} each (default 60); then, at the
 * first rate, ours beside the trivial webhook answering our own patch ({@code --patch-file}, registered as
 * {@link #FIXED}), which tells what applying our patch costs the API server from what our server costs. For each
 * window it prints, per webhook, the API server's {@code apiserver_admission_webhook_admission_duration_seconds}
 * (calls, share at or under 5 ms, estimated p50 and p99) and the client's own timings (p50, p99), then the ratios ours /
 * other; and where the time goes: each server's own time per review (ours from its metrics, the trivial's from its log,
 * with the HTTP version each request came in), the API server's connections to each webhook's Pods ({@code ss} every
 * half second: how many, how many new, bytes and segments per call), each webhook's CPU time and CFS throttling, and
 * our JVMs' collections and compilation. {@code -Dkvcache.bench.set="k=v;k2=v2"} upgrades the release with those
 * chart values first (an experiment: other JVM options, say). {@code -Dkvcache.bench.trivialDelay=450us} makes the
 * trivial webhook hold each answer that long without using CPU ({@code --delay}): what a slower answer at the wire
 * alone costs at the API server, apart from CPU taken from the node. Command: docs/explanation/performance.md, "Admission
 * latency as the API server sees it".
 */
@Timeout(value = 60, unit = TimeUnit.MINUTES)
class AdmissionLatencyBench {
    static final String OURS = "inject.kvcache.kvcache-injector.io";
    static final String TRIVIAL = "trivial.kvcache-bench.io";
    /** The trivial webhook answering with our patch, as it is (tools/e2e/images/cmd/trivialwebhook --patch-file). */
    static final String FIXED = "fixed.kvcache-bench.io";
    private static final String SYSTEM = "kvcache-system";
    private static final String BENCH_NS = "kvcache-bench";
    private static final String STUB = "kvci.local/engine-stub:1";
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path repo;
    private static Path work;
    private static NodeCluster cluster;
    private static WebhookSide ours;
    private static WebhookSide trivial;
    /** The trivial webhook's --delay, from -Dkvcache.bench.trivialDelay. */
    private static String trivialDelay;

    @BeforeAll
    static void startTheNodeAndInstallBothWebhooks() throws Exception {
        Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux"),
                "AdmissionLatencyBench: SKIPPED: a node needs Linux");
        Assumptions.assumeTrue(NodeE2E.uid() == 0, "AdmissionLatencyBench: SKIPPED: a node needs root");
        repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        trivialDelay = trivialDelayProperty(); // a bad value is refused before the node starts
        ControlPlaneBinaries.Found found = ControlPlaneBinaries.locate(repo, System.getenv());
        if (found instanceof ControlPlaneBinaries.Unavailable u) {
            Assumptions.abort("AdmissionLatencyBench: SKIPPED: " + u.reason());
        }
        Path assets = ((ControlPlaneBinaries.Available) found).dir();
        Assumptions.assumeTrue(Files.isExecutable(assets.resolve("kubelet")),
                "AdmissionLatencyBench: SKIPPED: " + assets + " has no kubelet");
        work = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "kvcache-latency-bench");
        Path image = E2eSupport.webhookImage(repo, l -> { });
        Path stubs = Path.of(run(List.of(repo.resolve("tools/e2e/images.sh").toString(),
                work.resolve("images").toString()), Duration.ofMinutes(5)).strip());
        cluster = NodeCluster.start(repo, assets, work.resolve("cluster"), List.of(stubs.resolve("pause.tar"),
                stubs.resolve("engine-stub.tar"), stubs.resolve("trivial-webhook.tar"), image), List.of());

        String tutorial = Files.readString(repo.resolve("docs/tutorial/install-and-first-pod.md"));
        for (DocBlocks.Block b : DocBlocks.parse(tutorial, "install-and-first-pod.md")) {
            if (b.kind() == DocBlocks.Kind.NODE || b.kind() == DocBlocks.Kind.RUN && b.text().contains("kind: KVCachePool\n")) {
                NodeCluster.Result r = cluster.exec(List.of("bash", "-euo", "pipefail", "-c", b.text()), "",
                        Duration.ofMinutes(4));
                assertThat(r.exit()).as("the tutorial's block at line %d printed:\n%s%s", b.line(), r.out(), r.err())
                        .isZero();
            }
        }
        // an experiment's chart values on top of the tutorial's (-Dkvcache.bench.set="k=v;k2=v2": helm --set each)
        String set = System.getProperty("kvcache.bench.set", "").strip();
        if (!set.isEmpty()) {
            List<String> upgrade = new ArrayList<>(List.of("helm", "upgrade", "kvcache-injector",
                    "deploy/helm/kvcache-injector", "-n", SYSTEM, "--reuse-values", "--wait", "--timeout", "4m"));
            for (String kv : set.split(";")) {
                upgrade.addAll(List.of("--set", kv.strip()));
            }
            NodeCluster.Result r = cluster.exec(upgrade, "", Duration.ofMinutes(5));
            assertThat(r.exit()).as("%s:\n%s%s", String.join(" ", upgrade), r.out(), r.err()).isZero();
            NodeCluster.Result rolled = cluster.exec(List.of("kubectl", "-n", SYSTEM, "rollout", "status",
                    "deployment/kvcache-injector", "--timeout=4m"), "", Duration.ofMinutes(5));
            assertThat(rolled.exit()).as("the rollout after %s:\n%s%s", set, rolled.out(), rolled.err()).isZero();
            System.out.println("bench: chart values set on top of the tutorial's: " + set);
        }
        ours = WebhookSide.resolve(cluster, OURS);
        installTheTrivialWebhook(ourPatch());
        trivial = WebhookSide.resolve(cluster, TRIVIAL);
        if (!trivialDelay.equals("0s")) {
            System.out.println("bench: the trivial webhook holds each answer " + trivialDelay
                    + " before writing it (--delay)");
        }
    }

    @AfterAll
    static void tearDown() throws IOException {
        if (cluster == null) {
            return;
        }
        try {
            // an experiment's replica logs (-Dkvcache.bench.logs=DIR; e.g. with jvm.extraOptions={-XX:+PrintCompilation})
            String logs = System.getProperty("kvcache.bench.logs", "").strip();
            if (!logs.isEmpty()) {
                Path file = Path.of(logs, "ours.log");
                Files.createDirectories(file.getParent());
                NodeCluster.Result r = cluster.exec(List.of("kubectl", "-n", SYSTEM, "logs", "-l",
                        "app.kubernetes.io/name=kvcache-injector", "--prefix", "--tail=-1", "--max-log-requests=10"),
                        "", Duration.ofMinutes(1));
                Files.writeString(file, r.out() + r.err());
                System.out.println("bench: our replicas' logs written to " + file);
            }
        } finally {
            // the cluster goes whatever became of the logs: tear-down stops every process the bench started
            cluster.close();
        }
    }

    @Test
    void bothWebhooksDrivenSideBySide() throws Exception {
        int seconds = Integer.getInteger("kvcache.bench.seconds", 60);
        List<Double> rates = new ArrayList<>();
        for (String r : System.getProperty("kvcache.bench.rates", "10,50").split(",")) {
            rates.add(Double.parseDouble(r.strip()));
        }
        int warmup = Integer.getInteger("kvcache.bench.warmup", 60);
        StringBuilder table = new StringBuilder();
        StringBuilder where = new StringBuilder();
        // both webhooks' first minute after the install at the first rate: connections, the JIT (what a rollout
        // costs); printed, and kept apart from the windows after it
        Window first = drive(rates.get(0), warmup, "warm-up", TRIVIAL);
        where.append(first.where("warm-up", "trivial")).append(restarts("warm-up"));
        // then at rest: what each webhook's Pods spend with no review to answer
        where.append(idle(30));
        table.append(String.format(Locale.ROOT, "%-8s %-10s %7s %9s %7s %7s %9s %9s %11s %11s%n", "rate", "webhook",
                "calls", "<= 5 ms", "> 5 ms", "> 25 ms", "p50 ms", "p99 ms", "client p50", "client p99"));
        for (double rate : rates) {
            Window w = drive(rate, seconds, "rate " + rate, TRIVIAL);
            table.append(w.ours().row(rate, "ours")).append(w.other().row(rate, "trivial"))
                    .append(w.ours().ratiosTo(w.other(), rate));
            where.append(w.where(rate + "/s", "trivial")).append(restarts(rate + "/s"));
            System.out.print("bench: window done\n" + table + where);
        }
        // the same comparison with the trivial webhook answering our patch: what applying it costs the API server
        double sameRate = rates.get(0);
        Window same = drive(sameRate, seconds, "rate " + sameRate + ", the trivial webhook with our patch", FIXED);
        table.append(same.ours().row(sameRate, "ours")).append(same.other().row(sameRate, "triv+patch"))
                .append(same.ours().ratiosTo(same.other(), sameRate));
        where.append(same.where(sameRate + "/s", "triv+patch")).append(restarts(sameRate + "/s"));
        System.out.println("\nbench: admission latency, side by side on one node (" + seconds + " s per rate, "
                + "dry-run Pod creates through the API server; API server: apiserver_admission_webhook_admission_"
                + "duration_seconds, share <= 5 ms and quantiles estimated in its buckets; client: NodeLoad; "
                + "triv+patch: the trivial webhook answering our patch)\n" + table
                + "\nwhere the time goes (server: each server's own time per review, ours from its"
                + " kvcache_injector_admission_duration_seconds, the trivial's from its log; connections: the API"
                + " server's to each webhook's Pods, by ss every 0.5 s; cpu: the webhook containers' cgroups; jvm: our"
                + " replicas' jvm_gc_collection_seconds and jvm_compilation_time_seconds_total)\n"
                + String.format(Locale.ROOT, "warm-up (%d s at %s/s): ours %s; trivial %s%n", warmup, rates.get(0),
                first.ours().row(rates.get(0), "").strip(), first.other().row(rates.get(0), "").strip()) + where);
    }

    /** Each side's container restarts and failed probes since the install, after the window {@code label}. */
    private static String restarts(String label) {
        return String.format(Locale.ROOT, "%-8s restarts and failed probes so far: ours %s; trivial %s%n"
                        + "%-8s memory, highest since each container started: ours %s; trivial %s%n", label,
                ours.restarts(cluster), trivial.restarts(cluster), label, ours.memoryPeaks(cluster),
                trivial.memoryPeaks(cluster));
    }

    /** {@code seconds} without load: each side's CPU per second, and our JVMs' collections and compilation. */
    private static String idle(int seconds) throws InterruptedException {
        MetricsSnapshot before = ours.podMetrics(cluster);
        WebhookSide.Cpu oursCpu = ours.cpu(cluster);
        WebhookSide.Cpu otherCpu = trivial.cpu(cluster);
        Thread.sleep(seconds * 1000L);
        WebhookSide.Cpu oursIdle = ours.cpu(cluster).minus(oursCpu);
        WebhookSide.Cpu otherIdle = trivial.cpu(cluster).minus(otherCpu);
        return String.format(Locale.ROOT, "idle %d s: ours %.1f ms cpu per second (%d replicas; jvm: %s), trivial %.1f"
                        + " ms per second%n", seconds, oursIdle.usageSeconds() * 1000 / seconds, ours.pods().size(),
                Jvm.of(before, ours.podMetrics(cluster)), otherIdle.usageSeconds() * 1000 / seconds);
    }

    /** Our replicas' JVM work between two scrapes: collections, their time, and the JIT compilers' time. */
    private record Jvm(double collections, double gcSeconds, double compileSeconds) {
        static Jvm of(MetricsSnapshot before, MetricsSnapshot after) {
            return new Jvm(delta(before, after, "jvm_gc_collection_seconds_count"),
                    delta(before, after, "jvm_gc_collection_seconds_sum"),
                    delta(before, after, "jvm_compilation_time_seconds_total"));
        }

        private static double delta(MetricsSnapshot before, MetricsSnapshot after, String metric) {
            return after.total(metric, Map.of()) - before.total(metric, Map.of());
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%.0f collections in %.0f ms, %.0f ms compiling", collections,
                    gcSeconds * 1000, compileSeconds * 1000);
        }
    }

    /** One webhook's figures over a window: the API server's histogram of its calls, and the client's timings. */
    private record Stats(long calls, double share5ms, long over5ms, long over25ms, double p50ms, double p99ms,
                         long clientP50, long clientP99, long failed) {
        /** From the API server's metrics around the window and the load's lines (failed: not answered 201). */
        static Stats of(String name, MetricsSnapshot before, MetricsSnapshot after, List<String[]> lines) {
            List<Long> client = latencies(lines);
            long failed = lines.stream().filter(l -> !l[2].equals("201")).count();
            Map<String, String> m = Map.of("name", name, "operation", "CREATE", "type", "admit");
            double calls = after.total(MetricsSnapshot.DURATION + "_count", m)
                    - before.total(MetricsSnapshot.DURATION + "_count", m);
            double under = under(before, after, m, "0.005");
            // calls over 25 ms: where a 40 ms wait for a delayed acknowledgement (Nagle's algorithm) lands
            double under25 = under(before, after, m, "0.025");
            return new Stats((long) calls, calls == 0 ? Double.NaN : under / calls, Math.round(calls - under),
                    Math.round(calls - under25),
                    after.quantile(MetricsSnapshot.DURATION, m, before, 0.5) * 1000,
                    after.quantile(MetricsSnapshot.DURATION, m, before, 0.99) * 1000, client.isEmpty() ? -1 : pct(client, 0.5),
                    client.isEmpty() ? -1 : pct(client, 0.99), failed);
        }

        /** The calls in the window at or under the bucket bound {@code le} (seconds, as the API server labels it). */
        private static double under(MetricsSnapshot before, MetricsSnapshot after, Map<String, String> m, String le) {
            Map<String, String> bucket = new LinkedHashMap<>(m);
            bucket.put("le", le);
            return after.total(MetricsSnapshot.DURATION + "_bucket", bucket)
                    - before.total(MetricsSnapshot.DURATION + "_bucket", bucket);
        }

        String row(double rate, String who) {
            return String.format(Locale.ROOT, "%-8s %-10s %7d %8.0f%% %7d %7d %9.2f %9.2f %11d %11d%s%n", rate + "/s",
                    who, calls, share5ms * 100, over5ms, over25ms, p50ms, p99ms, clientP50, clientP99,
                    failed == 0 ? "" : "   (" + failed + " creates not answered 201)");
        }

        String ratiosTo(Stats base, double rate) {
            return String.format(Locale.ROOT, "%-8s %-10s %7s %8.2fx %7s %7s %8.2fx %8.2fx %10.2fx %10.2fx%n",
                    rate + "/s", "ours/triv", "", share5ms / base.share5ms, "", "", p50ms / base.p50ms, p99ms / base.p99ms,
                    (double) clientP50 / base.clientP50, (double) clientP99 / base.clientP99);
        }
    }

    /** A server's own view of a window: its time per review, and the HTTP versions its requests came in. */
    private record Server(long calls, double p50ms, double p99ms, double meanMs, double share1ms, String protocols) {
        static Server ours(MetricsSnapshot before, MetricsSnapshot after) {
            String metric = AdmissionMetrics.DURATION_SECONDS;
            Map<String, String> m = Map.of("webhook", Webhook.KVCACHE_MUTATE.path());
            Map<String, String> le = Map.of("webhook", Webhook.KVCACHE_MUTATE.path(), "le", "0.001");
            double calls = after.total(metric + "_count", m) - before.total(metric + "_count", m);
            double sum = after.total(metric + "_sum", m) - before.total(metric + "_sum", m);
            double under = after.total(metric + "_bucket", le) - before.total(metric + "_bucket", le);
            return new Server((long) calls, after.quantile(metric, m, before, 0.5) * 1000,
                    after.quantile(metric, m, before, 0.99) * 1000, calls == 0 ? Double.NaN : sum / calls * 1000,
                    calls == 0 ? Double.NaN : under / calls, "HTTP/1.1 (all it offers)");
        }

        /** From the trivial webhook's log lines of {@code path}: durationMs and proto. */
        static Server trivial(List<String> logLines, String path) {
            List<Double> ms = new ArrayList<>();
            Map<String, Integer> protocols = new TreeMap<>();
            for (String line : logLines) {
                int brace = line.indexOf('{');
                if (brace < 0) {
                    continue;
                }
                JsonNode j;
                try {
                    j = JSON.readTree(line.substring(brace));
                } catch (IOException e) {
                    continue;
                }
                if (j.path("event").asText().equals("admission-review") && j.path("path").asText().equals(path)) {
                    ms.add(j.path("durationMs").asDouble());
                    protocols.merge(j.path("proto").asText(), 1, Integer::sum);
                }
            }
            ms.sort(null);
            double mean = ms.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
            long under = ms.stream().filter(d -> d <= 1.0).count();
            return new Server(ms.size(), ms.isEmpty() ? Double.NaN : pct(ms, 0.5),
                    ms.isEmpty() ? Double.NaN : pct(ms, 0.99), mean,
                    ms.isEmpty() ? Double.NaN : (double) under / ms.size(), protocols.toString());
        }
    }

    /** One side's view of a window besides the API server's: its server, the connections to it, its CPU. */
    private record Detail(Server server, WebhookSide.Traffic traffic, WebhookSide.Cpu cpu, String jvm) {
        String row(String label, String who, long apiCalls) {
            return String.format(Locale.ROOT, "%-8s %-10s server p50 %.3f ms, p99 %.3f ms, mean %.3f ms, %.0f%% <= 1 ms"
                    + " (%d reviews; %s)%n%-8s %-10s connections: %s%n%-8s %-10s cpu %.2f ms per call, throttled in %d"
                    + " of %d periods (%.0f ms)%s%n", label, who, server.p50ms(), server.p99ms(), server.meanMs(),
                    server.share1ms() * 100, server.calls(), server.protocols(), "", "", traffic.perCall(apiCalls), "",
                    "", apiCalls == 0 ? 0.0 : cpu.usageSeconds() * 1000 / apiCalls, cpu.throttledPeriods(),
                    cpu.periods(), cpu.throttledSeconds() * 1000, jvm.isEmpty() ? "" : "; jvm: " + jvm);
        }
    }

    /** One measured window: our load and the other one at one rate, the API server's metrics around it. */
    private record Window(Stats ours, Stats other, Detail oursDetail, Detail otherDetail) {
        /** The breakdown's rows of both sides, the first column {@code label} (the rate, or the warm-up). */
        String where(String label, String who) {
            return oursDetail.row(label, "ours", ours.calls()) + otherDetail.row(label, who, other.calls());
        }
    }

    /** Both loads at {@code rate} for {@code seconds}: ours, and {@code other} (the trivial webhook, or it with our patch). */
    private static Window drive(double rate, int seconds, String what, String other) throws Exception {
        MetricsSnapshot before = apiServerMetrics();
        MetricsSnapshot oursBefore = ours.podMetrics(cluster);
        int trivialLogBefore = trivialLog().size();
        WebhookSide.Cpu oursCpu = ours.cpu(cluster);
        WebhookSide.Cpu otherCpu = trivial.cpu(cluster);
        WebhookSide.ConnectionSampler sampler = WebhookSide.ConnectionSampler.start(cluster, List.of(ours, trivial),
                work, "window");
        Process oursLoad = load("ours", ourPod(), rate, seconds);
        Process otherLoad = load("other", other.equals(FIXED) ? fixedPod() : trivialPod(), rate, seconds);
        List<String[]> oursLines = finish(oursLoad, "ours");
        List<String[]> otherLines = finish(otherLoad, "other");
        WebhookSide.Connections connections = sampler.stop();
        MetricsSnapshot after = apiServerMetrics();
        MetricsSnapshot oursAfter = ours.podMetrics(cluster);
        List<String> trivialLog = trivialLog();
        // every create the API server answered 201 carries our record; the rest (an overloaded node's timeouts, the
        // client's stream limit) are counted, not hidden
        assertThat(oursLines.stream().filter(l -> l[2].equals("201")).toList())
                .as("%s: our creates answered 201 but not injected (start ms, latency ms, status, injected, error)", what)
                .allSatisfy(l -> assertThat(l[3]).isEqualTo("true"));
        Stats oursStats = Stats.of(OURS, before, after, oursLines);
        Stats otherStats = Stats.of(other, before, after, otherLines);
        return new Window(oursStats, otherStats,
                new Detail(Server.ours(oursBefore, oursAfter), connections.to(ours), ours.cpu(cluster).minus(oursCpu),
                        Jvm.of(oursBefore, oursAfter).toString()),
                new Detail(Server.trivial(trivialLog.subList(Math.min(trivialLogBefore, trivialLog.size()),
                        trivialLog.size()), other.equals(FIXED) ? "/mutate-fixed" : "/mutate"), connections.to(trivial),
                        trivial.cpu(cluster).minus(otherCpu), ""));
    }

    private static List<String> trivialLog() {
        return cluster.kubectlOk("-n", BENCH_NS, "logs", "deploy/trivial-webhook").lines().toList();
    }

    private static Process load(String name, String podJson, double rate, int seconds)
            throws IOException, URISyntaxException {
        Path pod = work.resolve(name + "-pod.json");
        Files.writeString(pod, podJson);
        Path out = work.resolve(name + "-load.txt");
        Files.deleteIfExists(out);
        String java = ProcessHandle.current().info().command().orElse("java");
        String classes = Path.of(NodeLoad.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        return cluster.spawn(List.of(java, "-cp", classes, NodeLoad.class.getName(), cluster.kubeconfig().toString(),
                name.equals("ours") ? "team-a" : BENCH_NS, pod.toString(), Double.toString(rate),
                Integer.toString(seconds), out.toString(), work.resolve(name + "-load.stop").toString()),
                work.resolve(name + "-load.log"));
    }

    private static List<String[]> finish(Process p, String name) throws IOException, InterruptedException {
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("the " + name + " load did not end");
        }
        assertThat(p.exitValue()).as("the %s load's exit:\n%s", name,
                Files.readString(work.resolve(name + "-load.log"))).isZero();
        List<String[]> lines = new ArrayList<>();
        for (String l : Files.readAllLines(work.resolve(name + "-load.txt"))) {
            if (!l.isBlank()) {
                lines.add(l.split(" ", 5));
            }
        }
        return lines;
    }

    /** The client's latencies of the creates answered 201, sorted. */
    private static List<Long> latencies(List<String[]> lines) {
        return lines.stream().filter(l -> l[2].equals("201")).map(l -> Long.parseLong(l[1])).sorted().toList();
    }

    /** The {@code q}-quantile of a sorted, non-empty list: the element at rank {@code q * size}, rounded. */
    private static <T> T pct(List<T> sorted, double q) {
        return sorted.get((int) Math.min(sorted.size() - 1, Math.round(sorted.size() * q)));
    }

    private static String ourPod() {
        return pod("team-a", "\"kvcache.gpustack.ai/inject\":\"true\"");
    }

    /** The same Pod for the trivial webhook: its label instead of ours; NodeLoad's "injected" is false for it. */
    private static String trivialPod() {
        return pod(BENCH_NS, "\"trivial\":\"true\"");
    }

    /** The same Pod for the trivial webhook answering our patch. */
    private static String fixedPod() {
        return pod(BENCH_NS, "\"trivial-fixed\":\"true\"");
    }

    /**
     * Our webhook's patch for {@link #ourPod()}: a review of it sent to one of our Pods directly (curl in the node's
     * namespace), its {@code response.patch} decoded.
     */
    private static String ourPatch() throws IOException {
        JsonNode pod = JSON.readTree(ourPod());
        ObjectNode review = JSON.createObjectNode().put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
        ObjectNode request = review.putObject("request").put("uid", "bench-patch").put("namespace", "team-a")
                .put("operation", "CREATE").put("dryRun", true);
        request.putObject("kind").put("group", "").put("version", "v1").put("kind", "Pod");
        request.putObject("resource").put("group", "").put("version", "v1").put("resource", "pods");
        request.putObject("userInfo").put("username", "kubernetes-admin");
        request.set("object", pod);
        WebhookSide.PodRef target = ours.pods().get(0);
        String answer = cluster.exec(List.of("curl", "-sSk", "--max-time", "10", "-H", "Content-Type: application/json",
                "--data-binary", "@-", "https://" + target.ip() + ":" + target.port() + "/kvcache/mutate"),
                JSON.writeValueAsString(review), Duration.ofSeconds(30)).requireSuccess("the review sent to "
                + target.name()).out();
        String patch = JSON.readTree(answer).path("response").path("patch").asText();
        assertThat(patch).as("our answer to the bench Pod's review has a patch:\n%s", answer).isNotEmpty();
        return new String(Base64.getDecoder().decode(patch), StandardCharsets.UTF_8);
    }

    private static String pod(String namespace, String label) {
        return """
                {"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"bench-","namespace":"%s",
                 "labels":{%s},
                 "annotations":{"kvcache.gpustack.ai/binding":"chat","kvcache.gpustack.ai/engine":"vLLM"}},
                 "spec":{"containers":[{"name":"server","image":"%s","command":["vllm"],
                 "args":["serve","--model","Qwen/Qwen3-8B"]}]}}
                """.formatted(namespace, label, STUB);
    }

    /**
     * A CA and a serving certificate by openssl, the Secret, one replica, its Service, its registration; and {@code
     * patch} in a ConfigMap, answered on {@code /mutate-fixed}, registered as {@link #FIXED}.
     */
    private static void installTheTrivialWebhook(String patch) throws IOException {
        Path pki = work.resolve("trivial-pki");
        Files.createDirectories(pki);
        String host = "trivial-webhook." + BENCH_NS + ".svc";
        run(List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", pki.resolve("ca.key").toString(), "-out", pki.resolve("ca.crt").toString(), "-days", "2",
                "-subj", "/CN=trivial-webhook-ca"), Duration.ofMinutes(1));
        run(List.of("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                pki.resolve("tls.key").toString(), "-out", pki.resolve("tls.csr").toString(), "-subj", "/CN=" + host),
                Duration.ofMinutes(1));
        Files.writeString(pki.resolve("san.ext"), "subjectAltName=DNS:" + host + "\n");
        run(List.of("openssl", "x509", "-req", "-in", pki.resolve("tls.csr").toString(), "-CA",
                pki.resolve("ca.crt").toString(), "-CAkey", pki.resolve("ca.key").toString(), "-CAcreateserial",
                "-days", "2", "-extfile", pki.resolve("san.ext").toString(), "-out", pki.resolve("tls.crt").toString()),
                Duration.ofMinutes(1));
        cluster.kubectlOk("create", "namespace", BENCH_NS);
        cluster.kubectlOk("-n", BENCH_NS, "create", "secret", "tls", "trivial-webhook-tls", "--cert",
                pki.resolve("tls.crt").toString(), "--key", pki.resolve("tls.key").toString());
        Files.writeString(work.resolve("patch.json"), patch);
        cluster.kubectlOk("-n", BENCH_NS, "create", "configmap", "trivial-patch", "--from-file=patch.json="
                + work.resolve("patch.json"));
        String caBundle = Base64.getEncoder().encodeToString(Files.readAllBytes(pki.resolve("ca.crt")));
        NodeCluster.Result applied = cluster.kubectlIn("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: trivial-webhook, namespace: %1$s}
                spec:
                  replicas: 1
                  selector: {matchLabels: {app: trivial-webhook}}
                  template:
                    metadata: {labels: {app: trivial-webhook}}
                    spec:
                      containers:
                        - name: webhook
                          image: kvci.local/trivial-webhook:1
                          imagePullPolicy: Never
                          args: ["--port", "8443", "--cert", "/tls/tls.crt", "--key", "/tls/tls.key",
                                 "--patch-file", "/patch/patch.json", "--delay", "%5$s"]
                          ports: [{name: https, containerPort: 8443}]
                          readinessProbe: {httpGet: {path: /healthz, port: 8443, scheme: HTTPS}, periodSeconds: 1}
                          resources: {requests: {cpu: 50m, memory: 32Mi}, limits: {memory: 64Mi}}
                          securityContext: {runAsNonRoot: true, runAsUser: 65532, readOnlyRootFilesystem: true,
                                            allowPrivilegeEscalation: false}
                          volumeMounts: [{name: tls, mountPath: /tls, readOnly: true},
                                         {name: patch, mountPath: /patch, readOnly: true}]
                      volumes: [{name: tls, secret: {secretName: trivial-webhook-tls}},
                                {name: patch, configMap: {name: trivial-patch}}]
                ---
                apiVersion: v1
                kind: Service
                metadata: {name: trivial-webhook, namespace: %1$s}
                spec:
                  selector: {app: trivial-webhook}
                  ports: [{name: https, port: 443, targetPort: 8443}]
                ---
                apiVersion: admissionregistration.k8s.io/v1
                kind: MutatingWebhookConfiguration
                metadata: {name: trivial-webhook}
                webhooks:
                  - name: %2$s
                    admissionReviewVersions: [v1]
                    sideEffects: None
                    failurePolicy: Fail
                    timeoutSeconds: 10
                    objectSelector: {matchLabels: {trivial: "true"}}
                    rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
                    clientConfig:
                      service: {namespace: %1$s, name: trivial-webhook, path: /mutate, port: 443}
                      caBundle: %3$s
                  - name: %4$s
                    admissionReviewVersions: [v1]
                    sideEffects: None
                    failurePolicy: Fail
                    timeoutSeconds: 10
                    objectSelector: {matchLabels: {trivial-fixed: "true"}}
                    rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
                    clientConfig:
                      service: {namespace: %1$s, name: trivial-webhook, path: /mutate-fixed, port: 443}
                      caBundle: %3$s
                """.formatted(BENCH_NS, TRIVIAL, caBundle, FIXED, trivialDelay), "apply", "-f", "-");
        assertThat(applied.exit()).as("kubectl apply of the trivial webhook:\n%s%s", applied.out(), applied.err())
                .isZero();
        NodeCluster.Result ready = cluster.exec(List.of("kubectl", "-n", BENCH_NS, "rollout", "status",
                "deployment/trivial-webhook", "--timeout=2m"), "", Duration.ofMinutes(3));
        assertThat(ready.exit()).as("the trivial webhook's rollout:\n%s%s", ready.out(), ready.err()).isZero();
        // its patch arrives: one annotation, one env var
        String dryRun = cluster.kubectlIn(trivialPod(), "create", "--dry-run=server", "-o",
                "jsonpath={.metadata.annotations.trivial\\.kvcache-injector\\.io/seen} {.spec.containers[0].env[0].name}",
                "-f", "-").out();
        assertThat(dryRun).as("the trivial webhook's mark on a dry-run create").isEqualTo("true TRIVIAL_WEBHOOK");
        // and with our patch: our record on the Pod
        NodeCluster.Result fixed = cluster.kubectlIn(fixedPod(), "create", "--dry-run=server", "-o",
                "jsonpath={.metadata.annotations.kvcache\\.gpustack\\.ai/injected}", "-f", "-");
        assertThat(fixed.exit()).as("a dry-run create through the trivial webhook with our patch:\n%s%s", fixed.out(),
                fixed.err()).isZero();
        assertThat(fixed.out()).as("our record, from the trivial webhook answering our patch").isNotEmpty();
    }

    /** -Dkvcache.bench.trivialDelay as the trivial webhook's --delay (a Go duration; 0s when not given). */
    static String trivialDelayProperty() {
        String d = System.getProperty("kvcache.bench.trivialDelay", "").strip();
        if (d.isEmpty()) {
            return "0s";
        }
        Matcher m = Pattern.compile("([0-9]{1,10})(ns|us|ms)").matcher(d);
        long unit = !m.matches() ? 0 : switch (m.group(2)) { case "ns" -> 1L; case "us" -> 1_000L; default -> 1_000_000L; };
        if (unit == 0 || Long.parseLong(m.group(1)) * unit > 1_000_000_000L) {
            throw new IllegalArgumentException("AdmissionLatencyBench: -Dkvcache.bench.trivialDelay=" + d + " is not a"
                    + " delay the trivial webhook takes; give a whole number of ns, us or ms up to 1 s, such as 450us");
        }
        return d;
    }

    private static MetricsSnapshot apiServerMetrics() {
        return MetricsSnapshot.parse(cluster.kubectlOk("get", "--raw", "/metrics"));
    }

    private static String run(List<String> command, Duration timeout) {
        return E2eSupport.run(repo, command, timeout);
    }
}
