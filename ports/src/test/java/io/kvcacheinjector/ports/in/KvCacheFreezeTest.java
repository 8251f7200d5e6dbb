package io.kvcacheinjector.ports.in;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.ports.service.KvCacheFreeze;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The freeze of docs/reference/kvcache-contract.md, through the use case. */
class KvCacheFreezeTest {
    private static final String LABEL = "kvcache.gpustack.ai/inject";
    private static final String RECORD = "kvcache.gpustack.ai/injected";
    private static final String CONFIG = "kvcache.gpustack.ai/client-config";
    private final KvCacheFreeze freeze = new KvCacheFreeze();

    private static Map<String, Object> pod(Map<String, String> labels, Map<String, String> annotations, Object... extra) {
        Map<String, Object> md = new LinkedHashMap<>();
        md.put("name", "chat-0");
        md.put("namespace", "team-a");
        md.put("labels", new LinkedHashMap<>(labels));
        md.put("annotations", new LinkedHashMap<>(annotations));
        for (int i = 0; i < extra.length; i += 2) {
            md.put((String) extra[i], extra[i + 1]);
        }
        return new LinkedHashMap<>(Map.of("metadata", md, "spec", Map.of("containers", List.of(Map.of("name", "server")))));
    }

    private static final Map<String, String> IN = Map.of(LABEL, "true");
    private static final Map<String, String> WRITTEN = Map.of(RECORD, "{\"binding\":\"chat\"}", CONFIG, "{\"protocol\":\"rdma\"}",
            "kvcache.gpustack.ai/binding", "chat");

    @Test
    void unrelatedEditsAreAdmitted() {
        Map<String, String> edited = new LinkedHashMap<>(WRITTEN);
        edited.put("kvcache.gpustack.ai/binding", "other");
        edited.put("team", "a");
        assertThat(freeze.validate("team-a", new ReceivedPod(pod(IN, WRITTEN)), new ReceivedPod(pod(Map.of(LABEL, "true", "app", "x"), edited))))
                .isEqualTo(Decision.Admit.unchanged());
    }

    @Test
    void finalizerRemovalOnATerminatingPodIsAdmitted() {
        Object before = pod(IN, WRITTEN, "deletionTimestamp", "2026-11-30T00:00:00Z", "finalizers", List.of("x/y"));
        Object after = pod(IN, WRITTEN, "deletionTimestamp", "2026-11-30T00:00:00Z", "finalizers", List.of());
        assertThat(freeze.validate("team-a", new ReceivedPod(before), new ReceivedPod(after))).isEqualTo(Decision.Admit.unchanged());
    }

    @Test
    void droppingTheLabelIsRefusedWithOldAndNewValues() {
        Decision d = freeze.validate("team-a", new ReceivedPod(pod(IN, WRITTEN)), new ReceivedPod(pod(Map.of(LABEL, "false"), WRITTEN)));
        Decision.Refuse r = (Decision.Refuse) d;
        assertThat(r.codes()).containsExactly(ReasonCode.FROZEN_LABEL);
        assertThat(r.message()).startsWith("frozen-label: ").contains("team-a/chat-0").contains("\"true\"").contains("\"false\"")
                .endsWith("change the label where the Pod is defined and let the Pod be replaced.");
    }

    @Test
    void addingTheLabelIsRefused() {
        Decision.Refuse r = (Decision.Refuse) freeze.validate("team-a", new ReceivedPod(pod(Map.of(), Map.of())), new ReceivedPod(pod(IN, Map.of())));
        assertThat(r.codes()).containsExactly(ReasonCode.FROZEN_LABEL);
        assertThat(r.message()).contains("(absent)").contains("only at CREATE");
    }

    @Test
    void editingTheRecordIsRefused() {
        Map<String, String> edited = new LinkedHashMap<>(WRITTEN);
        edited.put(RECORD, "{\"binding\":\"forged\"}");
        Decision.Refuse r = (Decision.Refuse) freeze.validate("team-a", new ReceivedPod(pod(IN, WRITTEN)), new ReceivedPod(pod(IN, edited)));
        assertThat(r.reason()).isEqualTo("frozen-record");
        assertThat(r.message()).contains(RECORD).contains("edited").contains("let the Pod be replaced");
    }

    @Test
    void removingTheClientConfigIsRefusedOnATerminatingPodToo() {
        Map<String, String> stripped = new LinkedHashMap<>(WRITTEN);
        stripped.remove(CONFIG);
        Decision.Refuse r = (Decision.Refuse) freeze.validate("team-a",
                new ReceivedPod(pod(IN, WRITTEN, "deletionTimestamp", "2026-11-30T00:00:00Z")),
                new ReceivedPod(pod(IN, stripped, "deletionTimestamp", "2026-11-30T00:00:00Z")));
        assertThat(r.reason()).isEqualTo("frozen-client-config");
        assertThat(r.message()).contains(CONFIG).contains("removed").contains("kubelet keeps projecting");
    }

    @Test
    void strippingAllThreeKeysReportsThreeErrorsInTableOrderInOneMessage() {
        Decision.Refuse r = (Decision.Refuse) freeze.validate("team-a", new ReceivedPod(pod(IN, WRITTEN)), new ReceivedPod(pod(Map.of(), Map.of())));
        assertThat(r.reason()).isEqualTo("frozen-label,frozen-record,frozen-client-config");
        assertThat(r.message()).doesNotContain("\n");
        assertThat(r.message().indexOf("frozen-label:")).isLessThan(r.message().indexOf("frozen-record:"));
        assertThat(r.message().indexOf("frozen-record:")).isLessThan(r.message().indexOf("frozen-client-config:"));
    }

    @Test
    void podsThatWereNeverOptedInAreAdmittedWhateverChanges() {
        assertThat(freeze.validate("team-a", new ReceivedPod(pod(Map.of(LABEL, "True"), Map.of())), new ReceivedPod(pod(Map.of(LABEL, "yes"), Map.of(RECORD, "x")))))
                .isEqualTo(Decision.Admit.unchanged());
    }
}
