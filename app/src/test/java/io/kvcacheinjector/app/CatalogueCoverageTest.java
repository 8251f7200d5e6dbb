package io.kvcacheinjector.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.ReasonCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every code of the catalogue is exercised by a test that checks the code and the message: a golden case
 * ({@code expected-refusal.txt}, or a warning/skip code in {@code expected-warnings.txt}) in an engine module, or one
 * of the unit tests named below for conditions a golden file cannot express.
 */
class CatalogueCoverageTest {
    /** Codes whose condition is about the cluster view's state or an UPDATE, tested by these classes. */
    private static final Map<String, String> UNIT_TESTED = Map.of(
            "cluster-not-ready", "ports KvCacheInjectionTest",
            "frozen-label", "ports KvCacheFreezeTest",
            "frozen-record", "ports KvCacheFreezeTest",
            "frozen-client-config", "ports KvCacheFreezeTest",
            "lookup-failed", "ports CacheBlendInjectionTest");

    @Test
    void everyCodeHasAGoldenCaseOrANamedUnitTest() throws IOException {
        Set<String> covered = new TreeSet<>(UNIT_TESTED.keySet());
        for (String module : new String[] {"engines-vllm", "engines-ascend", "engines-sglang"}) {
            Path testdata = Path.of("..", module, "src", "test", "resources", "testdata");
            try (Stream<Path> files = Files.walk(testdata)) {
                for (Path f : files.filter(p -> p.getFileName().toString().startsWith("expected-")
                        && p.getFileName().toString().endsWith(".txt")).toList()) {
                    var lines = Files.readAllLines(f);
                    if (f.getFileName().toString().equals("expected-refusal.txt")) {
                        covered.addAll(Arrays.asList(lines.get(0).trim().split(",")));
                    } else {
                        lines.stream().map(String::trim).filter(s -> !s.isEmpty()).forEach(covered::add);
                    }
                }
            }
        }
        Set<String> missing = Arrays.stream(ReasonCode.values()).map(ReasonCode::id).filter(id -> !covered.contains(id))
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(missing).as("codes without a golden case or a named unit test").isEmpty();
    }
}
