package io.kvcacheinjector.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A short run of the whole bench machinery — both servers, the cold start, the warm-up, alternating rounds, the
 * answer checks, the in-memory timing and the report — asserting that it produces numbers, never what they are.
 */
class AdmissionBenchTest {
    private static Path cluster;
    private static BenchReport report;
    private static String progress;

    @BeforeAll
    static void runOnce() throws Exception {
        cluster = ExampleCluster.writeToTemporaryDirectory();
        BenchOptions options = BenchOptions.parse(new String[] {"--duration", "400ms", "--round", "100ms",
                "--warmup", "100ms", "--max-warmup", "100ms", "--connections", "2"});
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        report = AdmissionBench.run(options, BenchFixtures.realUseCases(cluster),
                new PrintStream(err, true, StandardCharsets.UTF_8), 20);
        progress = err.toString(StandardCharsets.UTF_8);
    }

    @AfterAll
    static void clean() {
        ExampleCluster.delete(cluster);
    }

    @Test
    void bothSidesAnsweredEveryRequestAsExpected() {
        assertThat(report.problems()).isEmpty();
        assertThat(report.valid()).isTrue();
        for (SideResult side : List.of(report.real(), report.baseline())) {
            assertThat(side.requests()).as(side.side().label()).isPositive();
            assertThat(side.errors()).as(side.side().label()).isZero();
            assertThat(side.requestsPerSecond()).as(side.side().label()).isPositive();
            assertThat(side.p50Nanos()).isPositive().isLessThanOrEqualTo(side.p90Nanos());
            assertThat(side.p90Nanos()).isLessThanOrEqualTo(side.p99Nanos());
            assertThat(side.p99Nanos()).isLessThanOrEqualTo(side.maxNanos());
        }
        assertThat(report.throughputRatio()).isPositive().isFinite();
        assertThat(report.cpuRatio()).isPositive().isFinite();
    }

    @Test
    void theReportCoversTheColdStartTheInMemoryTimingReadinessAndMemory() {
        assertThat(report.cold().requests()).isEqualTo(ColdStart.REQUESTS);
        assertThat(report.cold().errors()).isZero();
        assertThat(report.cold().firstNanos()).isPositive();
        assertThat(report.decision().review()).isEqualTo("vllm");
        assertThat(report.decision().decisionMedianNanos()).isPositive();
        assertThat(report.readyMillis()).isPositive();
        assertThat(report.heapMaxBytes()).isPositive();
        if (Path.of("/proc/self/status").toFile().canRead()) {
            assertThat(report.rssAfterBytes()).isPresent();
            assertThat(report.rssMaxBytes()).isPresent();
        }
        assertThat(report.targets()).hasSize(5);
        assertThat(progress).contains("bench: the real webhook answered /readyz").contains("bench: measuring 4 rounds");
    }

    @Test
    void theTableShowsBothSidesTheRatioAndTheTargets() {
        String table = report.table();
        assertThat(table).contains("2 connections per side, 400ms measured in 4 alternating rounds of 100ms")
                .containsPattern("(?m)^real +\\d+ +\\d+\\.\\d")
                .containsPattern("(?m)^baseline +\\d+ +\\d+\\.\\d")
                .containsPattern("throughput ratio real/baseline: \\d+\\.\\d{3}")
                .containsPattern("CPU per review baseline/real: \\d+\\.\\d{3}")
                .contains("vllm (4504 B, patched)").contains("refused (").contains("refused launch-shell-c")
                .contains("cold start: the first 200 reviews").contains("memory: RSS").contains("targets:")
                .doesNotContain("NOT VALID");
    }

    @Test
    void theJsonIsOneObjectWithTheSameNumbers() {
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) Json.parse(report.json()).orElseThrow();
        assertThat(json.get("valid")).isEqualTo(true);
        @SuppressWarnings("unchecked")
        Map<String, Object> real = (Map<String, Object>) json.get("real");
        assertThat(((Number) real.get("requests")).longValue()).isEqualTo(report.real().requests());
        assertThat(real).containsKeys("requestsPerSecond", "p50Ms", "p90Ms", "p99Ms", "maxMs", "cpuMicrosPerRequest");
        assertThat(json).containsKeys("baseline", "throughputRatio", "cpuRatio", "p99ExcessMs", "inMemory", "readyMs", "coldStart",
                "warmup", "memory", "jvm", "targets", "reviews", "options");
        assertThat((List<?>) json.get("reviews")).hasSize(4);
        assertThat((List<?>) json.get("problems")).isEmpty();
    }
}
