package io.kvcacheinjector.training;

import io.kvcacheinjector.bench.BenchCommand;
import io.kvcacheinjector.app.cli.Cli;
import io.kvcacheinjector.app.engines.EngineOptions;
import io.kvcacheinjector.app.serve.ServeOptions;
import io.kvcacheinjector.app.serve.ServeRuntime;

import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.adapters.http.tls.Pem;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import io.kvcacheinjector.bench.BenchReview;
import io.kvcacheinjector.bench.ExampleCluster;
import io.kvcacheinjector.app.offline.InjectCommand;
import io.kvcacheinjector.standin.StandInApiServer;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code aot-training [--engines-dir DIR]}: the training run of the JDK's AOT cache (in the image build by
 * deploy/Dockerfile, locally by deploy/aot-cache.sh), so that the cache holds what {@code serve} loads in a cluster
 * and not only what {@code bench} loads.
 *
 * <ol>
 *   <li>{@code serve} as the chart runs it — the Guice wiring, the informer-backed cluster view over fabric8's
 *   client, certificate files, and the CacheBlendEngine controller with its leader election — against a
 *   {@link StandInApiServer} on the loopback address holding the example cluster (an image build reaches no API
 *   server), until {@code /readyz} answers 200; then every review of the bench mix through it over HTTPS, each
 *   answer checked, a scrape of {@code /metrics} in both text formats, and until the controller has applied the
 *   example engine's DaemonSet;</li>
 *   <li>then {@code bench} for a few seconds (the file-backed view, the review path under load, as before);</li>
 *   <li>then {@code inject} of the example vLLM Pod and of the refused one on the example cluster, as a user runs it
 *   (the YAML path, the command line of {@code inject}), each exit status checked.</li>
 * </ol>
 *
 * <p>Exit 0 when both worked; otherwise 1 with one line on stderr naming what did not (a cache made from a training
 * run that did not take the informer path would silently give the start-up time back, so this is loud); 2 for bad
 * usage.
 */
@Command(name = "aot-training",
        description = {"The training run of the JVM's ahead-of-time cache (deploy/Dockerfile, deploy/aot-cache.sh):"
                + " serve against a stand-in API server on loopback, as the chart runs it, then bench for a few"
                + " seconds, then inject of two example Pods. Not meant to be run by hand."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:every part worked", "1:a part did not; one line on stderr naming it",
                "2:bad usage; one line on stderr"})
public final class AotTrainingCommand implements Callable<Integer> {
    static final Duration READY = Duration.ofSeconds(60);
    static final Duration CONTROLLER = Duration.ofSeconds(30);
    /** How often the review mix is sent through {@code serve} (each review's path is compiled by then). */
    static final int ROUNDS = 50;
    /** The embedded bench Pods the inject part injects: one admitted (exit 0), one refused (exit 1). */
    static final List<String> INJECTED_PODS = List.of("vllm", "refused");
    static final List<String> BENCH = List.of("--duration", "4s", "--warmup", "2s", "--max-warmup", "2s",
            "--round", "500ms", "--connections", "2");

    @Mixin
    EngineOptions engines = new EngineOptions();

    @Mixin
    Cli.Help help = new Cli.Help();

    private final PrintStream out;
    private final PrintStream err;

    public AotTrainingCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        return Cli.execute(new AotTrainingCommand(out, err), args, out, err);
    }

    @Override
    public Integer call() throws Exception {
        Optional<String> enginesDir = engines.given();
        long t = System.nanoTime();
        try {
            ServeTraining done = serveAgainstTheStandIn(enginesDir, out);
            err.println("aot-training: " + done + " in " + (System.nanoTime() - t) / 1_000_000 + " ms");
        } catch (TrainingFailed e) {
            err.println("aot-training: " + e.getMessage());
            return Cli.NO;
        }
        List<String> bench = new ArrayList<>(BENCH);
        enginesDir.ifPresent(d -> bench.addAll(List.of(EngineOptions.FLAG, d)));
        int status = BenchCommand.run(bench.toArray(String[]::new), out, err);
        if (status != 0) {
            err.println("aot-training: the bench part of the training run failed (exit " + status + ")");
            return status;
        }
        try {
            injectTheExamples(enginesDir);
        } catch (TrainingFailed e) {
            err.println("aot-training: " + e.getMessage());
            return Cli.NO;
        }
        return Cli.OK;
    }

    /**
     * {@code inject --cluster DIR -f POD} of the example vLLM Pod (exit 0) and of the refused one (exit 1) on the
     * example cluster, so that the cache also holds what {@code inject} loads and links, which {@code serve} never
     * does: the YAML mappers, its command line (docs/explanation/performance-log.md, "inject's start-up after
     * picocli (issue 23)").
     */
    static void injectTheExamples(Optional<String> enginesDir) throws TrainingFailed, IOException {
        Path cluster = ExampleCluster.writeToTemporaryDirectory();
        Path pods = Files.createTempDirectory("kvcache-injector-aot-training-pods");
        try {
            ObjectMapper json = new ObjectMapper();
            for (String name : INJECTED_PODS) {
                Path pod = pods.resolve(name + ".json"); // JSON is YAML: inject reads it as it reads any manifest
                Files.write(pod, json.writeValueAsBytes(json.readTree(BenchReview.named(name).body())
                        .path("request").path("object")));
                List<String> args = new ArrayList<>(List.of("--cluster", cluster.toString(), "-f", pod.toString()));
                enginesDir.ifPresent(d -> args.addAll(List.of(EngineOptions.FLAG, d)));
                ByteArrayOutputStream stdout = new ByteArrayOutputStream();
                ByteArrayOutputStream stderr = new ByteArrayOutputStream();
                int status = InjectCommand.run(args.toArray(String[]::new), InputStream.nullInputStream(),
                        new PrintStream(stdout, true, StandardCharsets.UTF_8),
                        new PrintStream(stderr, true, StandardCharsets.UTF_8));
                int expected = name.equals("refused") ? Cli.NO : Cli.OK;
                if (status != expected || (expected == Cli.OK && stdout.size() == 0)) {
                    throw new TrainingFailed("the inject part of the training run failed: inject of the example "
                            + name + " Pod exited " + status + ", not " + expected + " ("
                            + Cli.oneLine(stderr.toString(StandardCharsets.UTF_8)) + ")");
                }
            }
        } finally {
            ExampleCluster.delete(cluster);
            for (String name : INJECTED_PODS) {
                deleteQuietly(pods.resolve(name + ".json"));
            }
            deleteQuietly(pods);
        }
    }

    /** Temporary files left behind are not worth a failure, nor worth hiding the one line of a failed part. */
    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // a temporary file left behind: see above
        }
    }

    /** A step of the training that did not work; its message is the one line for the operator. */
    static final class TrainingFailed extends Exception {
        TrainingFailed(String message) {
            super(message);
        }
    }

    /**
     * What the serve part of the training did.
     *
     * @param readyMs  from starting {@code serve} to its first {@code /readyz} 200
     * @param reviews  reviews answered as expected
     * @param requests the stand-in API server's requests by sort ({@link StandInApiServer#counts()})
     */
    record ServeTraining(String apiServer, long readyMs, int reviews, Map<String, Long> requests) {
        @Override
        public String toString() {
            return "serve against the stand-in API server " + apiServer + ": ready after " + readyMs + " ms, "
                    + reviews + " reviews answered correctly, the CacheBlendEngine controller applied its DaemonSet;"
                    + " requests " + requests;
        }
    }

    /** Runs {@code serve} against a stand-in API server, as described above; the folder of engines as given. */
    static ServeTraining serveAgainstTheStandIn(Optional<String> enginesDir, PrintStream out) throws Exception {
        Path dir = Files.createTempDirectory("kvcache-injector-aot-training");
        String previousKubeconfig = System.getProperty("kubeconfig");
        String previousNoProxy = System.getProperty("no.proxy");
        SelfSignedCertificate certificate = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
        try (StandInApiServer api = StandInApiServer.start(certificate.serving(), ExampleCluster.objects())) {
            Path kubeconfig = dir.resolve("kubeconfig");
            Files.writeString(kubeconfig, api.kubeconfig(certificate.caPem()), StandardCharsets.UTF_8);
            // fabric8 reads the system property before $KUBECONFIG, so the training never sees a real cluster
            System.setProperty("kubeconfig", kubeconfig.toString());
            // and never through a proxy an image build's environment may name (HTTPS_PROXY): the stand-in is local
            System.setProperty("no.proxy", "127.0.0.1,localhost");
            Path cert = dir.resolve("tls.crt");
            Path key = dir.resolve("tls.key");
            Files.writeString(cert, Pem.write(certificate.serving().chain()), StandardCharsets.US_ASCII);
            Files.writeString(key, Pem.write(certificate.serving().key()), StandardCharsets.US_ASCII);
            List<String> args = new ArrayList<>(List.of("--host", "127.0.0.1", "--port", "0",
                    "--tls-cert", cert.toString(), "--tls-key", key.toString(),
                    "--namespace", "kvcache-injector", "--settings-namespace", "gpustack-system",
                    "--reconcile-cacheblend"));
            enginesDir.ifPresent(d -> args.addAll(List.of(EngineOptions.FLAG, d)));
            ServeOptions options = ServeOptions.parse(args.toArray(String[]::new), Map.of("POD_NAME", "aot-training"));
            long started = System.nanoTime();
            ServeRuntime runtime;
            try {
                runtime = ServeRuntime.start(options, JsonLog.to(out), Clock.systemUTC());
            } catch (RuntimeException e) {
                throw new TrainingFailed("serve did not start against the stand-in API server: "
                        + Cli.oneLine(String.valueOf(e.getMessage())) + rootCause(e) + "; requests "
                        + api.counts());
            }
            try {
                HttpClient http = HttpClient.newBuilder().sslContext(trusting(certificate))
                        .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
                String base = "https://127.0.0.1:" + runtime.port();
                // readiness over HTTPS, not on a plain-HTTP --health-port as the chart's kubelet probes it: a cache
                // trained with plain-HTTP requests on the listener's code made serve's memory peak at 336-354 MiB
                // under 50 creates/s (OOM kills at the chart's 320Mi), against 174-207 MiB
                // (docs/explanation/performance-log.md, "Side by side with the probes on plain HTTP")
                long readyNanos = awaitReady(http, base, api) - started;
                int reviews = reviews(http, base);
                scrapeMetrics(http, base);
                awaitTheControllersApply(api);
                return new ServeTraining(api.url(), readyNanos / 1_000_000, reviews, api.counts());
            } finally {
                runtime.close();
            }
        } finally {
            restore("kubeconfig", previousKubeconfig);
            restore("no.proxy", previousNoProxy);
            for (String f : List.of("kubeconfig", "tls.crt", "tls.key")) {
                Files.deleteIfExists(dir.resolve(f));
            }
            Files.deleteIfExists(dir);
        }
    }

    private static void restore(String property, String previous) {
        if (previous == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, previous);
        }
    }

    /** Polls {@code /readyz} until 200; the time (nanoTime) it first did. */
    private static long awaitReady(HttpClient http, String base, StandInApiServer api) throws Exception {
        long deadline = System.nanoTime() + READY.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/readyz"))
                        .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return System.nanoTime();
                }
                last = r.statusCode() + " " + Cli.oneLine(r.body());
            } catch (IOException e) {
                last = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            Thread.sleep(20);
        }
        throw new TrainingFailed("serve against the stand-in API server did not answer /readyz 200 within "
                + READY.toSeconds() + " s (last: " + last + "; requests " + api.counts() + ")");
    }

    /**
     * Scrapes {@code /metrics} as Prometheus does, in the text format 0.0.4 and in OpenMetrics, so that the cache
     * holds the metrics client's registry and writers too; each must count the reviews just sent.
     */
    private static void scrapeMetrics(HttpClient http, String base) throws Exception {
        for (String accept : List.of("text/plain;version=0.0.4", "application/openmetrics-text;version=1.0.0")) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).header("Accept", accept).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200 || !r.body().contains("kvcache_injector_admissions_total{")) {
                throw new TrainingFailed("serve against the stand-in API server answered GET /metrics (Accept: "
                        + accept + ") with HTTP " + r.statusCode() + " and no kvcache_injector_admissions_total");
            }
        }
    }

    /** Sends every review of the bench mix {@value #ROUNDS} times; all must get the expected answer. */
    private static int reviews(HttpClient http, String base) throws Exception {
        List<BenchReview> all = BenchReview.all();
        int answered = 0;
        for (int round = 0; round < ROUNDS; round++) {
            for (BenchReview review : all) {
                HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(base + "/"
                                + review.webhook().path())).timeout(Duration.ofSeconds(10))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(review.body())).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                Optional<String> mismatch = r.statusCode() == 200 ? review.mismatch(r.body())
                        : Optional.of(review.name() + ": HTTP " + r.statusCode());
                if (mismatch.isPresent()) {
                    throw new TrainingFailed("serve against the stand-in API server answered a review wrongly: "
                            + Cli.oneLine(mismatch.get()));
                }
                answered++;
            }
        }
        return answered;
    }

    /** Waits until the controller, once leader, has applied the example engine's DaemonSet. */
    private static void awaitTheControllersApply(StandInApiServer api) throws Exception {
        long deadline = System.nanoTime() + CONTROLLER.toNanos();
        while (System.nanoTime() < deadline) {
            if (api.counts().getOrDefault("patch daemonsets", 0L) > 0) {
                return;
            }
            Thread.sleep(20);
        }
        throw new TrainingFailed("the CacheBlendEngine controller did not apply a DaemonSet for team-a/cacheblend"
                + " within " + CONTROLLER.toSeconds() + " s (requests " + api.counts() + ")");
    }

    /** The innermost cause, as {@code " (Class: message)"}; empty when there is none. */
    private static String rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? "" : " (" + root.getClass().getSimpleName() + ": "
                + Cli.oneLine(String.valueOf(root.getMessage())) + ")";
    }

    private static SSLContext trusting(SelfSignedCertificate certificate) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("ca", certificate.ca());
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, trust.getTrustManagers(), null);
        return tls;
    }
}
