package io.kvcacheinjector.ports.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.JsonPatch;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.Warning;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The golden-file contract test every engine module (and the CacheBlend suite) extends: one dynamic test per case
 * folder under {@code src/test/resources/testdata/<suite>/}. For each case the Pod is decided, the produced patch is
 * applied with a real RFC 6902 implementation to the Pod as received, and the result is compared with
 * {@code expected.json}; or the refusal's code and message are compared with {@code expected-refusal.txt}.
 *
 * <p>Case folder: {@code pod.json}; optional {@code review.json} ({@code {"namespace": …}}, default {@code team-a});
 * optional {@code cluster/*.json} (else {@code _cluster/}); and {@code expected.json} (+ optional
 * {@code expected-warnings.txt}, one code per line) or {@code expected-refusal.txt} (first line: the code(s),
 * comma-joined; every further line a substring the message must contain). Any other file fails the case, so stale
 * files are noticed. Run with {@code -Dgolden.update=true} to rewrite {@code expected.json} from the actual output.
 */
public abstract class GoldenContractTest {
    protected static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final Set<String> KNOWN_FILES = Set.of("pod.json", "review.json", "cluster", "expected.json",
            "expected-warnings.txt", "expected-refusal.txt", "README.md");

    /** The suite folder under {@code testdata/}. */
    protected abstract String suite();

    /** Decides one case. */
    protected abstract Decision decide(String namespace, Object pod, FakeClusterDirectory directory);

    /** JSON-pointer patterns the contract allows a patch to touch. */
    protected abstract List<Pattern> allowedPaths();

    protected Path suiteDir() {
        return Path.of("src", "test", "resources", "testdata", suite());
    }

    @TestFactory
    Stream<DynamicTest> goldenCases() throws IOException {
        Path dir = suiteDir();
        assertThat(dir).as("golden suite folder").isDirectory();
        List<Path> cases;
        try (Stream<Path> s = Files.list(dir)) {
            cases = s.filter(Files::isDirectory).filter(p -> !p.getFileName().toString().startsWith("_")).sorted().toList();
        }
        assertThat(cases).as("golden cases in " + dir).isNotEmpty();
        return cases.stream().map(c -> DynamicTest.dynamicTest(c.getFileName().toString(), () -> runCase(c)));
    }

    /** Every case folder name, for coverage checks. */
    protected List<Path> caseDirs() throws IOException {
        try (Stream<Path> s = Files.list(suiteDir())) {
            return s.filter(Files::isDirectory).filter(p -> !p.getFileName().toString().startsWith("_")).sorted().toList();
        }
    }

    private void runCase(Path caseDir) throws IOException {
        try (Stream<Path> s = Files.list(caseDir)) {
            for (Path f : s.toList()) {
                assertThat(KNOWN_FILES).as("unexpected file in golden case " + caseDir).contains(f.getFileName().toString());
            }
        }
        Object pod = JSON.readValue(caseDir.resolve("pod.json").toFile(), Object.class);
        String namespace = "team-a";
        if (Files.exists(caseDir.resolve("review.json"))) {
            JsonNode review = JSON.readTree(caseDir.resolve("review.json").toFile());
            namespace = review.path("namespace").asText("team-a");
        }
        Path clusterDir = Files.isDirectory(caseDir.resolve("cluster")) ? caseDir.resolve("cluster") : suiteDir().resolve("_cluster");
        FakeClusterDirectory directory = FakeClusterDirectory.load(clusterDir);
        JsonNode original = JSON.valueToTree(pod);

        Decision decision = decide(namespace, pod, directory);
        Decision again = decide(namespace, JSON.readValue(caseDir.resolve("pod.json").toFile(), Object.class), directory);
        assertThat(render(again)).as("deciding the same Pod twice gives identical answers").isEqualTo(render(decision));
        assertThat((JsonNode) JSON.valueToTree(pod)).as("the decision never modifies the received object").isEqualTo(original);

        Path expectedRefusal = caseDir.resolve("expected-refusal.txt");
        Path expectedPod = caseDir.resolve("expected.json");
        switch (decision) {
            case Decision.Refuse r -> {
                if (!Files.exists(expectedRefusal)) {
                    fail("case " + caseDir.getFileName() + " was refused but expects admission: " + r.message());
                }
                List<String> lines = Files.readAllLines(expectedRefusal, StandardCharsets.UTF_8);
                assertThat(r.reason()).as("refusal code").isEqualTo(lines.get(0).trim());
                assertThat(r.message()).as("a refusal message starts with its code").startsWith(r.codes().get(0).id() + ": ");
                assertThat(r.message()).as("a refusal message is one paragraph").doesNotContain("\n");
                for (String needle : lines.subList(1, lines.size())) {
                    if (!needle.isBlank()) {
                        assertThat(r.message()).as("refusal message").contains(needle);
                    }
                }
            }
            case Decision.Admit a -> checkPatched(caseDir, original, a.patch(), a.warnings().stream().map(Warning::code).map(Object::toString).toList(),
                    expectedRefusal, expectedPod);
            case Decision.Skip s -> checkPatched(caseDir, original, s.patch(), List.of(s.code().id()), expectedRefusal, expectedPod);
        }
    }

    private void checkPatched(Path caseDir, JsonNode original, List<PatchOp> patch, List<String> warnings, Path expectedRefusal,
                              Path expectedPod) throws IOException {
        if (Files.exists(expectedRefusal)) {
            fail("case " + caseDir.getFileName() + " expects a refusal but was admitted with " + warnings);
        }
        for (PatchOp op : patch) {
            assertThat(allowedPaths().stream().anyMatch(p -> p.matcher(op.path()).matches()))
                    .as("patch path %s is one the contract names", op.path()).isTrue();
        }
        JsonNode patchJson = patchJson(patch);
        JsonNode patched = JsonPatch.apply(patchJson, original.deepCopy());
        if (Boolean.getBoolean("golden.update")) {
            Files.writeString(expectedPod, JSON.writeValueAsString(patched) + "\n");
        }
        assertThat(Files.exists(expectedPod)).as("expected.json in " + caseDir).isTrue();
        JsonNode expected = JSON.readTree(expectedPod.toFile());
        assertThat(patched).as("the Pod after applying the patch (case " + caseDir.getFileName() + ")").isEqualTo(expected);
        List<String> expectedWarnings = Files.exists(caseDir.resolve("expected-warnings.txt"))
                ? Files.readAllLines(caseDir.resolve("expected-warnings.txt")).stream().map(String::trim).filter(s -> !s.isEmpty()).toList()
                : List.of();
        assertThat(warnings).as("warning codes").containsExactlyElementsOf(expectedWarnings);
    }

    /** The RFC 6902 JSON of a patch. */
    public static ArrayNode patchJson(List<PatchOp> patch) {
        ArrayNode arr = JSON.createArrayNode();
        for (PatchOp op : patch) {
            ObjectNode n = arr.addObject();
            n.put("op", op.op().json());
            n.put("path", op.path());
            if (op.op() != PatchOp.Op.REMOVE) {
                n.set("value", JSON.valueToTree(op.value()));
            }
        }
        return arr;
    }

    private static String render(Decision d) {
        Map<String, Object> m = new LinkedHashMap<>();
        switch (d) {
            case Decision.Admit a -> {
                m.put("patch", patchJson(a.patch()).toString());
                m.put("warnings", a.warnings().stream().map(Warning::message).toList());
            }
            case Decision.Refuse r -> m.put("refuse", r.reason() + " " + r.message());
            case Decision.Skip s -> m.put("skip", s.code() + " " + s.message() + patchJson(s.patch()));
        }
        return m.toString();
    }

    /** Patterns from strings. */
    protected static List<Pattern> patterns(String... regex) {
        List<Pattern> out = new ArrayList<>();
        Arrays.stream(regex).map(Pattern::compile).forEach(out::add);
        return out;
    }
}
