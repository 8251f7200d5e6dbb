package io.kvcacheinjector.app.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The steady client of NodeE2E's rollout cases, run inside the node's network namespace ({@code cluster.sh exec}):
 * it creates opted-in Pods with server-side dry run at a fixed rate, each request started on schedule whether or
 * not the previous one has answered, and writes one line per create: {@code startMs latencyMs status injected
 * error}. A create counts as injected when the API server answered 201 and the Pod it would store carries the
 * webhook's record annotation. It ends after its duration, or early when the stop file appears. Beside OUT it
 * writes {@code OUT.start}: the wall-clock milliseconds of its time 0, so that a test can place an event of its
 * own (a kill) on the same time line.
 *
 * <p>{@code java -cp test-classes io.kvcacheinjector.app.e2e.NodeLoad KUBECONFIG NAMESPACE POD_JSON RATE_PER_S
 * SECONDS OUT STOP_FILE}. JDK only: it runs on the class path of the test classes alone.
 */
public final class NodeLoad {
    static final String RECORD = "kvcache.gpustack.ai/injected";

    private NodeLoad() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: NodeLoad KUBECONFIG NAMESPACE POD_JSON RATE_PER_S SECONDS OUT STOP_FILE");
            System.exit(2);
        }
        List<String> kubeconfig = Files.readAllLines(Path.of(args[0]));
        String server = field(kubeconfig, "server:");
        String ca = field(kubeconfig, "certificate-authority:");
        String token = field(kubeconfig, "token:");
        String namespace = args[1];
        byte[] pod = Files.readAllBytes(Path.of(args[2]));
        double rate = Double.parseDouble(args[3]);
        long seconds = Long.parseLong(args[4]);
        Path out = Path.of(args[5]);
        Path stop = Path.of(args[6]);

        HttpClient http = HttpClient.newBuilder().sslContext(trusting(Path.of(ca)))
                .connectTimeout(Duration.ofSeconds(10)).build();
        URI uri = URI.create(server + "/api/v1/namespaces/" + namespace + "/pods?dryRun=All");
        ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();
        List<CompletableFuture<?>> inFlight = new ArrayList<>();
        long start = System.nanoTime();
        Files.writeString(Path.of(out + ".start"), Long.toString(System.currentTimeMillis()));
        long periodNanos = (long) (1e9 / rate);
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        for (long i = 0; ; i++) {
            long due = start + i * periodNanos;
            if (due > end || Files.exists(stop)) {
                break;
            }
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            long sent = System.nanoTime();
            long startMs = TimeUnit.NANOSECONDS.toMillis(sent - start);
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(pod)).build();
            inFlight.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).handle((response, error) -> {
                long latencyMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
                if (error != null) {
                    lines.add(startMs + " " + latencyMs + " 0 false " + oneLine(error.toString()));
                } else {
                    boolean injected = response.statusCode() == 201 && response.body().contains("\"" + RECORD + "\"");
                    lines.add(startMs + " " + latencyMs + " " + response.statusCode() + " " + injected + " "
                            + (response.statusCode() == 201 ? "-" : oneLine(response.body())));
                }
                return null;
            }));
        }
        CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
            lines.stream().sorted((a, b) -> Long.compare(Long.parseLong(a.split(" ", 2)[0]),
                    Long.parseLong(b.split(" ", 2)[0]))).forEach(w::println);
        }
        System.out.println("NodeLoad: " + lines.size() + " creates written to " + out);
    }

    private static String field(List<String> lines, String key) {
        return lines.stream().map(String::strip).filter(l -> l.startsWith(key))
                .map(l -> l.substring(key.length()).strip()).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no '" + key + "' in the kubeconfig"));
    }

    private static String oneLine(String s) {
        String line = s.replaceAll("\\s+", " ").strip();
        return line.length() > 300 ? line.substring(0, 300) : line;
    }

    private static SSLContext trusting(Path caFile) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        int n = 0;
        try (InputStream in = Files.newInputStream(caFile)) {
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trust.setCertificateEntry("ca-" + n++, c);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + caFile + ": " + e.getMessage(), e);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return ssl;
    }
}
