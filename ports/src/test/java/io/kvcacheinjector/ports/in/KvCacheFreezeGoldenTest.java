package io.kvcacheinjector.ports.in;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.ports.service.KvCacheFreeze;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The freeze's golden cases ({@code testdata/freeze/cases.yaml}) through the use case: the codes, in order, and a
 * message whose every sentence names the Pod, the key and the fix. The e2e suite runs the same file through the
 * chart's ValidatingAdmissionPolicy as well ({@code FreezePolicyE2E}).
 */
class KvCacheFreezeGoldenTest {
    private static final String NAMESPACE = "team-a";
    private final KvCacheFreeze freeze = new KvCacheFreeze();

    @TestFactory
    Stream<DynamicTest> everyGoldenCaseGetsItsCodesAndOneSentencePerCode() throws IOException {
        List<Map<String, Object>> cases = cases();
        assertThat(cases).hasSizeGreaterThanOrEqualTo(15);
        assertThat(cases.stream().flatMap(c -> strings(c.get("codes")).stream()).distinct())
                .as("every freeze code has a golden case")
                .containsExactlyInAnyOrder("frozen-label", "frozen-record", "frozen-client-config");
        return cases.stream().map(c -> DynamicTest.dynamicTest((String) c.get("name"), () -> check(c)));
    }

    private void check(Map<String, Object> c) {
        String name = (String) c.get("name");
        Decision decision = freeze.validate(NAMESPACE, new ReceivedPod(pod(name, c, "before")), new ReceivedPod(pod(name, c, "after")));
        List<String> expected = strings(c.get("codes"));
        if (expected.isEmpty()) {
            assertThat(decision).isEqualTo(Decision.Admit.unchanged());
            return;
        }
        assertThat(decision).isInstanceOf(Decision.Refuse.class);
        Decision.Refuse refuse = (Decision.Refuse) decision;
        assertThat(refuse.codes()).extracting(ReasonCode::id).containsExactlyElementsOf(expected);
        String message = refuse.message();
        assertThat(message).startsWith(expected.getFirst() + ": ").doesNotContain("\n");
        int from = 0;
        for (String code : expected) {
            int at = message.indexOf(code + ": ", from);
            assertThat(at).as("sentence of %s, after the previous one, in: %s", code, message).isGreaterThanOrEqualTo(from);
            from = at + 1;
        }
        assertThat(message.split("(?<=replaced\\.) (?=frozen-)")).hasSize(expected.size()).allSatisfy(sentence ->
                assertThat(sentence).contains("on Pod " + NAMESPACE + "/" + name).contains("kvcache.gpustack.ai/")
                        .endsWith("let the Pod be replaced."));
    }

    /** The Pod of a case, before or after, as the API server sends it in an AdmissionReview. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> pod(String name, Map<String, Object> c, String side) {
        Map<String, Object> state = (Map<String, Object>) c.get(side);
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", name);
        metadata.put("namespace", NAMESPACE);
        metadata.put("labels", new LinkedHashMap<>((Map<String, Object>) state.get("labels")));
        metadata.put("annotations", new LinkedHashMap<>((Map<String, Object>) state.get("annotations")));
        metadata.put("finalizers", state.containsKey("finalizers") ? state.get("finalizers")
                : List.of("e2e.kvcache-injector.io/hold"));
        if (Boolean.TRUE.equals(c.get("terminating"))) {
            metadata.put("deletionTimestamp", "2026-11-30T00:00:00Z");
        }
        return new LinkedHashMap<>(Map.of("apiVersion", "v1", "kind", "Pod", "metadata", metadata,
                "spec", Map.of("containers", List.of(Map.of("name", "server", "image", "vllm/vllm-openai:v0.29.0")))));
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> cases() throws IOException {
        try (InputStream in = KvCacheFreezeGoldenTest.class.getResourceAsStream("/testdata/freeze/cases.yaml")) {
            assertThat(in).as("testdata/freeze/cases.yaml on the test class path").isNotNull();
            Map<String, Object> file = new ObjectMapper(new YAMLFactory()).readValue(in, Map.class);
            return (List<Map<String, Object>>) file.get("cases");
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> strings(Object list) {
        return (List<String>) list;
    }
}
