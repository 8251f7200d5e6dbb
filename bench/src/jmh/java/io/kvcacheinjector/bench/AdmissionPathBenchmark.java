package io.kvcacheinjector.bench;

import io.kvcacheinjector.adapters.http.AdmissionAnswer;
import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.domain.Webhook;
import java.nio.file.Path;
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
 * One admission without HTTP: the AdmissionReview bytes → decode → decision → the encoded response bytes,
 * through the server's {@link AdmissionHandler} (metrics recorded, the log line formatted and dropped), for each
 * engine's review and a refused one, on the real use cases over the example cluster ({@code side=real}) and on
 * the bench's do-nothing baseline ({@code side=baseline}). Run with {@code -prof gc} for the allocated bytes per
 * operation ({@code gc.alloc.rate.norm}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx384m"})
public class AdmissionPathBenchmark {
    @Param({"vllm", "vllm-ascend", "sglang", "cacheblend", "wide", "refused"})
    public String review;

    @Param({"real", "baseline"})
    public String side;

    private Path cluster;
    private AdmissionHandler handler;
    private Webhook webhook;
    private byte[] body;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        cluster = ExampleCluster.writeToTemporaryDirectory();
        handler = AdmissionHandler.quiet(side.equals("real") ? JmhWiring.useCases(cluster)
                : BenchServers.admitEverything());
        BenchReview r = BenchReview.named(review);
        webhook = r.webhook();
        body = r.body();
        AdmissionAnswer answer = handler.handle(webhook, body);
        if (side.equals("real") && r.mismatch(answer.body()).isPresent()) {
            throw new IllegalStateException(r.mismatch(answer.body()).get());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ExampleCluster.delete(cluster);
    }

    @Benchmark
    public AdmissionAnswer handle() {
        return handler.handle(webhook, body);
    }
}
