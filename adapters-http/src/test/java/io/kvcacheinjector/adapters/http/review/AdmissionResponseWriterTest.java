package io.kvcacheinjector.adapters.http.review;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.zjsonpatch.JsonPatch;
import io.kvcacheinjector.adapters.http.testing.Reviews;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AdmissionResponseWriterTest {
    private static final ObjectMapper JACKSON = new ObjectMapper();

    private static final List<PatchOp> INJECTION = List.of(
            PatchOp.add("/metadata/annotations", Map.of("kvcache.gpustack.ai/injected", "{\"engine\":\"vllm\"}")),
            PatchOp.add("/spec/containers/0/env", List.of(Map.of("name", "MOONCAKE_CONFIG_PATH",
                    "value", "/etc/gpustack/kvcache/mooncake.json"))));

    @Test
    void anAdmissionWithAPatchCarriesItAsBase64JsonPatchThatYieldsThePatchedPod() throws Exception {
        Map<String, Object> pod = Reviews.optedInPod();
        byte[] body = AdmissionResponseWriter.decision("u-1", new Decision.Admit(INJECTION, List.of()));

        Map<String, Object> review = Reviews.parse(body);
        assertThat(review).containsEntry("apiVersion", "admission.k8s.io/v1").containsEntry("kind", "AdmissionReview");
        Map<String, Object> response = Reviews.response(body);
        assertThat(response).containsEntry("uid", "u-1").containsEntry("allowed", true)
                .containsEntry("patchType", "JSONPatch").doesNotContainKeys("warnings", "auditAnnotations", "status");

        byte[] patch = Base64.getDecoder().decode((String) response.get("patch"));
        JsonNode patched = JsonPatch.apply(JACKSON.readTree(patch), JACKSON.readTree(Json.write(pod)));
        assertThat(patched.at("/metadata/annotations/kvcache.gpustack.ai~1injected").asText())
                .isEqualTo("{\"engine\":\"vllm\"}");
        assertThat(patched.at("/spec/containers/0/env/0/name").asText()).isEqualTo("MOONCAKE_CONFIG_PATH");
        assertThat(patched.at("/metadata/labels/kvcache.gpustack.ai~1inject").asText()).isEqualTo("true");
    }

    @Test
    void anAdmissionWithoutChangesHasNoPatchAtAll() {
        byte[] body = AdmissionResponseWriter.decision("u-2", Decision.Admit.unchanged());
        assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo(
                "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                        + "\"response\":{\"uid\":\"u-2\",\"allowed\":true}}");
    }

    @Test
    void warningsGoToTheResponseAsMessagesAndToTheAuditAnnotationAsCodes() {
        byte[] body = AdmissionResponseWriter.decision("u-3", new Decision.Admit(INJECTION, List.of(
                new Warning(ReasonCode.WARN_ENVFROM, "warn-envfrom: container \"server\" has envFrom ConfigMap \"x\""),
                new Warning(ReasonCode.WARN_NO_TENANT, "warn-no-tenant: pool \"p\" is single-tenant"))));
        Map<String, Object> response = Reviews.response(body);
        assertThat(response.get("warnings")).isEqualTo(List.of(
                "warn-envfrom: container \"server\" has envFrom ConfigMap \"x\"",
                "warn-no-tenant: pool \"p\" is single-tenant"));
        assertThat(response.get("auditAnnotations")).isEqualTo(Map.of("warnings", "warn-envfrom,warn-no-tenant"));
    }

    @Test
    void aRefusalIsA403ForbiddenWithTheMessageAndTheCodeInTheAuditAnnotation() {
        String message = "key-owned: container \"server\" passes \"--kv_transfer_config\", which vLLM reads as "
                + "--kv-transfer-config; remove it";
        byte[] body = AdmissionResponseWriter.decision("u-4", new Decision.Refuse(ReasonCode.KEY_OWNED, message));
        assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo(
                "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"u-4\","
                        + "\"allowed\":false,\"status\":{\"code\":403,\"reason\":\"Forbidden\",\"message\":"
                        + Json.quote(message) + "},\"auditAnnotations\":{\"refusal\":\"key-owned\"}}}");
    }

    @Test
    void aFreezeRefusalCarriesEveryCodeCommaJoinedInTableOrder() {
        byte[] body = AdmissionResponseWriter.decision("u-5", new Decision.Refuse(
                List.of(ReasonCode.FROZEN_LABEL, ReasonCode.FROZEN_RECORD), "frozen-label: ... frozen-record: ..."));
        assertThat(Reviews.response(body).get("auditAnnotations"))
                .isEqualTo(Map.of("refusal", "frozen-label,frozen-record"));
    }

    @Test
    void aSkipIsAllowedWithOnlyTheAnnotationPatchAWarningAndTheSkipReason() throws Exception {
        List<PatchOp> annotation = List.of(PatchOp.add("/metadata/annotations",
                Map.of("lmcache.ai/cacheblend-skip-reason", "engine-not-found")));
        String message = "engine-not-found: CacheBlendEngine team-a/blend does not exist";
        byte[] body = AdmissionResponseWriter.decision("u-6",
                new Decision.Skip(ReasonCode.ENGINE_NOT_FOUND, message, annotation));

        Map<String, Object> response = Reviews.response(body);
        assertThat(response).containsEntry("allowed", true).containsEntry("warnings", List.of(message))
                .containsEntry("auditAnnotations", Map.of("skip-reason", "engine-not-found"));
        JsonNode patched = JsonPatch.apply(
                JACKSON.readTree(Base64.getDecoder().decode((String) response.get("patch"))),
                JACKSON.readTree(Json.write(Reviews.optedInPod())));
        assertThat(patched.at("/metadata/annotations/lmcache.ai~1cacheblend-skip-reason").asText())
                .isEqualTo("engine-not-found");
    }

    @Test
    void theSameDecisionAlwaysGivesTheSameBytes() {
        Decision d = new Decision.Admit(INJECTION,
                List.of(new Warning(ReasonCode.WARN_CONFIG_FILE, "warn-config-file: \"/cfg.yaml\"")));
        assertThat(AdmissionResponseWriter.decision("u", d)).isEqualTo(AdmissionResponseWriter.decision("u", d));
    }

    @Test
    void removeOperationsCarryNoValue() {
        assertThat(AdmissionResponseWriter.patchJson(List.of(new PatchOp(PatchOp.Op.REMOVE, "/spec/x", "ignored"))))
                .isEqualTo("[{\"op\":\"remove\",\"path\":\"/spec/x\"}]");
    }

    @Test
    void anErrorBodyNamesTheErrorAndTheMessage() {
        assertThat(new String(AdmissionResponseWriter.error("bad-request", "request.uid is missing"),
                StandardCharsets.UTF_8)).isEqualTo("{\"error\":\"bad-request\",\"message\":\"request.uid is missing\"}");
    }
}
