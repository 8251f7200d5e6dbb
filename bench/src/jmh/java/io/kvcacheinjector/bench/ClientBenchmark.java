package io.kvcacheinjector.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One admission request over TLS on a kept-alive loopback connection to bench's baseline server (the do-nothing
 * use cases), sent by {@code bench}'s own client ({@code client=keepalive}, {@link KeepAliveConnection}, as
 * {@code ClosedLoopClient} sends it) or by the JDK's {@link HttpClient} (HTTP/1.1, the same TLS trust). The server
 * runs in the benchmark's JVM, so {@code -prof gc}'s bytes per operation are the server's plus the client's; the
 * server's are the same for both clients, so the difference between the two rows is the difference between the
 * clients. Each iteration also prints the bytes allocated per request by the benchmark's own thread (the whole of
 * {@code keepalive}'s client; for {@code jdk} only the calling thread's share, the rest is on its selector thread).
 * Loopback only (127.0.0.1).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx384m"})
public class ClientBenchmark {
    @Param({"keepalive", "jdk"})
    public String client;

    private BenchServers servers;
    private KeepAliveConnection connection;
    private byte[] prepared;
    private HttpClient http;
    private HttpRequest request;

    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
        servers = BenchServers.start(BenchServers.admitEverything());
        BenchReview review = BenchReview.named("vllm");
        int port = servers.port(Side.BASELINE);
        String path = "/" + review.webhook().path();
        if (client.equals("keepalive")) {
            prepared = KeepAliveConnection.request("POST", path, review.body());
            connection = new KeepAliveConnection(servers.clientContext(), port);
        } else {
            http = HttpClient.newBuilder().sslContext(servers.clientContext()).version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10)).build();
            request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(review.body())).build();
        }
        if (send() != 200) {
            throw new IllegalStateException(client + ": the baseline did not answer 200");
        }
    }

    private final com.sun.management.ThreadMXBean threadBean =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    private long sends;
    private long allocatedAtStart;

    @Setup(Level.Iteration)
    public void startCounting() {
        sends = 0;
        allocatedAtStart = threadBean.getCurrentThreadAllocatedBytes();
    }

    @TearDown(Level.Iteration)
    public void printCallingThread() {
        long bytes = threadBean.getCurrentThreadAllocatedBytes() - allocatedAtStart;
        System.out.printf("  [%s: calling thread %.0f B per request over %d requests]%n", client,
                sends == 0 ? 0.0 : (double) bytes / sends, sends);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (connection != null) {
            connection.close();
        }
        if (http != null) {
            http.close();
        }
        servers.close();
    }

    @Benchmark
    public int send() throws IOException, InterruptedException {
        sends++;
        if (connection != null) {
            return connection.send(prepared);
        }
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray()).statusCode();
    }
}
