package io.kvcacheinjector.bench;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.adapters.http.review.AdmissionResponseWriter;
import io.kvcacheinjector.adapters.http.review.AdmissionReviewReader;
import io.kvcacheinjector.adapters.http.review.ReviewReading;
import io.kvcacheinjector.adapters.http.review.ReviewRequest;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.Webhook;
import java.nio.charset.StandardCharsets;
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
 * The decision alone: the Pod as a JSON tree in memory (decoded once) → the use case's {@link Decision} → the JSON
 * Patch bytes (or, for a refusal, the message bytes). Sampled per call, so the report shows the median
 * ({@code p0.50}) the 100 µs target is about.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx384m"})
public class DecisionBenchmark {
    @Param({"vllm", "vllm-ascend", "sglang", "cacheblend", "wide", "refused"})
    public String review;

    private Path cluster;
    private AdmissionUseCases useCases;
    private Webhook webhook;
    private String namespace;
    private Object pod;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        cluster = ExampleCluster.writeToTemporaryDirectory();
        useCases = JmhWiring.useCases(cluster);
        BenchReview r = BenchReview.named(review);
        webhook = r.webhook();
        ReviewRequest request = switch (new AdmissionReviewReader().read(r.body())) {
            case ReviewReading.Readable ok -> ok.request();
            case ReviewReading.Unreadable bad -> throw new IllegalStateException(bad.message());
        };
        namespace = request.namespace();
        pod = request.object().orElseThrow();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ExampleCluster.delete(cluster);
    }

    @Benchmark
    public byte[] decide() {
        Decision d = webhook == Webhook.CACHEBLEND_MUTATE
                ? useCases.cacheBlendMutate().mutate(namespace, new ReceivedPod(pod))
                : useCases.kvCacheMutate().mutate(namespace, new ReceivedPod(pod));
        return switch (d) {
            case Decision.Admit admit -> AdmissionResponseWriter.patchJson(admit.patch()).getBytes(StandardCharsets.UTF_8);
            case Decision.Skip skip -> AdmissionResponseWriter.patchJson(skip.patch()).getBytes(StandardCharsets.UTF_8);
            case Decision.Refuse refuse -> refuse.message().getBytes(StandardCharsets.UTF_8);
        };
    }
}
