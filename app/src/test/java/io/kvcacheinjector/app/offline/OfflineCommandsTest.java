package io.kvcacheinjector.app.offline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The offline commands on the example cluster the README uses. */
class OfflineCommandsTest {
    private static final String CLUSTER = Path.of("..", "docs", "examples", "cluster").toString();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int inject(String file) throws Exception {
        return InjectCommand.run(new String[] {"--cluster", CLUSTER, "-f", Path.of("..", "docs", "examples", "pods", file).toString()},
                new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void injectsTheDeploymentTemplateOfTheReadme() throws Exception {
        assertThat(inject("vllm.yaml")).isZero();
        assertThat(out()).contains("kind: Deployment").contains("--kv-transfer-config")
                .contains("{\\\"kv_connector\\\":\\\"MooncakeStoreConnector\\\",\\\"kv_role\\\":\\\"kv_consumer\\\"}")
                .contains("mountPath: /etc/gpustack/kvcache").contains("kvcache.gpustack.ai/injected");
    }

    @Test
    void injectsSglangThroughTheEnvironment() throws Exception {
        assertThat(inject("sglang.yaml")).isZero();
        assertThat(out()).contains("MOONCAKE_MASTER").contains("--enable-hierarchical-cache").doesNotContain("gpustack-kvcache-config");
    }

    @Test
    void aRefusedObjectExitsOneWithItsReasonAndPrintsNothing() throws Exception {
        assertThat(inject("refused-shell.yaml")).isEqualTo(1);
        assertThat(out()).isEmpty();
        assertThat(err()).contains("Pod team-a/wrapped-0: launch-shell-c: ").contains("\"sh\"").contains("-c");
    }

    @Test
    void otherObjectsPassThroughUnchanged() throws Exception {
        String yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n";
        int rc = InjectCommand.run(new String[] {"--cluster", CLUSTER, "-f", "-"},
                new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isZero();
        assertThat(out()).contains("kind: ConfigMap").contains("a: b");
    }

    @Test
    void reviewAnswersTheReadmesExampleReviewWithAPatch() throws Exception {
        byte[] review = java.nio.file.Files.readAllBytes(Path.of("..", "docs", "examples", "reviews", "vllm-create.json"));
        int rc = ReviewCommand.run(new String[] {"--cluster", CLUSTER, "--webhook", "kvcache/mutate"},
                new ByteArrayInputStream(review), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isZero();
        assertThat(out()).contains("\"uid\":\"0df28fbd-5f5f-11e8-bc74-36e6bb280816\"").contains("\"allowed\":true")
                .contains("\"patchType\":\"JSONPatch\"");
    }

    @Test
    void reviewAnswersARefusalAsTheServerWould() throws Exception {
        String review = """
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",
                 "kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},
                 "operation":"CREATE","namespace":"team-a","object":{"apiVersion":"v1","kind":"Pod",
                 "metadata":{"name":"p","labels":{"kvcache.gpustack.ai/inject":"true"},
                 "annotations":{"kvcache.gpustack.ai/binding":"nope","kvcache.gpustack.ai/engine":"vLLM"}},
                 "spec":{"containers":[{"name":"server","command":["vllm"],"args":["serve"]}]}}}}
                """;
        int rc = ReviewCommand.run(new String[] {"--cluster", CLUSTER, "--webhook", "kvcache/mutate"},
                new ByteArrayInputStream(review.getBytes(StandardCharsets.UTF_8)), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isZero();
        assertThat(out()).contains("\"uid\":\"u-1\"").contains("\"allowed\":false").contains("binding-not-found: ")
                .contains("\"refusal\":\"binding-not-found\"");
    }

    @Test
    void reviewOfMalformedInputExitsTwoWithOneLine() throws Exception {
        int rc = ReviewCommand.run(new String[] {"--cluster", CLUSTER, "--webhook", "kvcache/mutate"},
                new ByteArrayInputStream("{not json".getBytes(StandardCharsets.UTF_8)), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isEqualTo(2);
        assertThat(out()).isEmpty();
        assertThat(err().strip()).startsWith("review: malformed AdmissionReview").doesNotContain("\n");
    }
}
