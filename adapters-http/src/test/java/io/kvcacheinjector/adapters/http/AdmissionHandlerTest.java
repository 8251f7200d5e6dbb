package io.kvcacheinjector.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.testing.FakeUseCases;
import io.kvcacheinjector.adapters.http.testing.Reviews;
import io.kvcacheinjector.adapters.http.telemetry.AdmissionMetrics;
import io.kvcacheinjector.adapters.http.telemetry.AdmissionOutcome;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.domain.json.Json;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AdmissionHandlerTest {
    private final FakeUseCases fakes = new FakeUseCases();
    private final AdmissionMetrics metrics = new AdmissionMetrics();
    private final List<String> logLines = new CopyOnWriteArrayList<>();
    private final AtomicLong nanos = new AtomicLong();
    private final AdmissionHandler handler = new AdmissionHandler(fakes.useCases(), AdmissionHandler.DEFAULT_FAIL_OPEN,
            metrics, new JsonLog(logLines::add, Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC)),
            () -> nanos.getAndAdd(1_500_000));

    @SuppressWarnings("unchecked")
    private Map<String, Object> lastLog() {
        assertThat(logLines).isNotEmpty();
        return (Map<String, Object>) Json.parse(logLines.getLast()).orElseThrow();
    }

    @Test
    void aPodCreateOnKvcacheMutateGoesToTheInjectionAndItsPatchComesBack() {
        List<PatchOp> patch = List.of(PatchOp.add("/metadata/annotations/kvcache.gpustack.ai~1injected", "{}"));
        fakes.kvCacheMutate = pod -> new Decision.Admit(patch, List.of());

        AdmissionAnswer answer = handler.handle(Webhook.KVCACHE_MUTATE, Reviews.bytes(Reviews.create("u-1",
                Reviews.optedInPod())));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(Reviews.response(answer.body())).containsEntry("uid", "u-1").containsEntry("allowed", true)
                .containsKey("patch");
        assertThat(fakes.calls).singleElement().satisfies(c -> {
            assertThat(c.useCase()).isEqualTo("kvcache-mutate");
            assertThat(c.namespace()).isEqualTo("team-a");
            assertThat(c.objects()).containsExactly(Reviews.optedInPod());
        });
        assertThat(metrics.count(Webhook.KVCACHE_MUTATE, AdmissionOutcome.ADMITTED, "")).isEqualTo(1);
    }

    @Test
    void aPodUpdateOnKvcacheValidateGoesToTheFreezeWithOldAndNewPods() {
        Map<String, Object> oldPod = Reviews.optedInPod();
        Map<String, Object> newPod = Reviews.pod("team-a", "chat-0", Map.of("kvcache.gpustack.ai/inject", "false"));
        fakes.kvCacheFreeze = pod -> new Decision.Refuse(List.of(ReasonCode.FROZEN_LABEL, ReasonCode.FROZEN_RECORD),
                "frozen-label: label kvcache.gpustack.ai/inject on Pod team-a/chat-0 changed. frozen-record: ...");

        AdmissionAnswer answer = handler.handle(Webhook.KVCACHE_VALIDATE,
                Reviews.bytes(Reviews.update("u-2", oldPod, newPod)));

        Map<String, Object> response = Reviews.response(answer.body());
        assertThat(response).containsEntry("allowed", false)
                .containsEntry("auditAnnotations", Map.of("refusal", "frozen-label,frozen-record"));
        assertThat(fakes.calls).singleElement().satisfies(c -> assertThat(c.objects()).containsExactly(oldPod, newPod));
        assertThat(metrics.count(Webhook.KVCACHE_VALIDATE, AdmissionOutcome.REFUSED, "frozen-label,frozen-record"))
                .isEqualTo(1);
        assertThat(lastLog()).containsEntry("reason", "frozen-label,frozen-record").containsEntry("outcome", "refused");
    }

    @Test
    void aCacheBlendSkipIsCountedAsSkippedWithItsCode() {
        fakes.cacheBlendMutate = pod -> new Decision.Skip(ReasonCode.LAUNCH_UNPROVEN,
                "launch-unproven: container \"server\" runs \"bash\"", List.of(PatchOp.add("/metadata/annotations",
                Map.of("lmcache.ai/cacheblend-skip-reason", "launch-unproven"))));

        AdmissionAnswer answer = handler.handle(Webhook.CACHEBLEND_MUTATE,
                Reviews.bytes(Reviews.create("u-3", Reviews.optedInPod())));

        assertThat(Reviews.response(answer.body())).containsEntry("allowed", true)
                .containsEntry("auditAnnotations", Map.of("skip-reason", "launch-unproven"));
        assertThat(fakes.calls).singleElement().satisfies(c -> assertThat(c.useCase()).isEqualTo("cacheblend-mutate"));
        assertThat(metrics.count(Webhook.CACHEBLEND_MUTATE, AdmissionOutcome.SKIPPED, "launch-unproven")).isEqualTo(1);
        assertThat(lastLog()).containsEntry("outcome", "skipped").containsEntry("reason", "launch-unproven")
                .containsEntry("message", "launch-unproven: container \"server\" runs \"bash\"");
    }

    @Test
    void writesOneJsonLogLinePerReviewWithTheFieldsOperatorsFilterOn() {
        fakes.kvCacheMutate = pod -> new Decision.Admit(List.of(), List.of(
                new Warning(ReasonCode.WARN_ENVFROM, "warn-envfrom: container \"server\" has envFrom"),
                new Warning(ReasonCode.WARN_NO_TENANT, "warn-no-tenant: pool \"p\"")));

        handler.handle(Webhook.KVCACHE_MUTATE, Reviews.bytes(Reviews.with(Reviews.create("u-4",
                Reviews.optedInPod()), "dryRun", true)));

        assertThat(logLines).hasSize(1);
        assertThat(logLines.getFirst()).startsWith("{\"ts\":\"2026-01-02T03:04:05Z\",\"level\":\"info\","
                + "\"event\":\"admission-review\",\"uid\":\"u-4\",\"namespace\":\"team-a\",\"name\":\"chat-0\","
                + "\"webhook\":\"kvcache/mutate\",\"operation\":\"CREATE\",\"outcome\":\"admitted\","
                + "\"warnings\":[\"warn-envfrom\",\"warn-no-tenant\"],\"durationMs\":1.500,\"dryRun\":true,");
        assertThat(lastLog()).doesNotContainKey("reason")
                .containsEntry("warningMessages", List.of("warn-envfrom: container \"server\" has envFrom",
                        "warn-no-tenant: pool \"p\""));
    }

    @Test
    void answerLeavesTheLogLineForAfterTheAnswerAndWritesItOnce() {
        AdmissionHandler.Answered answered = handler.answer(Webhook.KVCACHE_MUTATE,
                Reviews.bytes(Reviews.create("u-late", Reviews.optedInPod())));

        assertThat(Reviews.response(answered.answer().body())).containsEntry("uid", "u-late");
        assertThat(metrics.count(Webhook.KVCACHE_MUTATE, AdmissionOutcome.ADMITTED, "")).isEqualTo(1);
        assertThat(logLines).isEmpty();
        answered.writeLog();
        answered.writeLog();
        assertThat(logLines).singleElement().asString().contains("\"uid\":\"u-late\"")
                .contains("\"durationMs\":1.500");
    }

    @Test
    void aPodWithOnlyGenerateNameIsLoggedByItsGenerateName() {
        Map<String, Object> pod = Reviews.optedInPod();
        @SuppressWarnings("unchecked")
        Map<String, Object> metadata = (Map<String, Object>) pod.get("metadata");
        metadata.remove("name");
        metadata.put("generateName", "chat-7d9f-");

        handler.handle(Webhook.KVCACHE_MUTATE, Reviews.bytes(Reviews.create("u-5", pod)));

        assertThat(lastLog()).containsEntry("generateName", "chat-7d9f-").doesNotContainKey("name");
    }

    @Test
    void dryRunGetsTheSameAnswerAsARealRequest() {
        fakes.kvCacheMutate = pod -> new Decision.Refuse(ReasonCode.BINDING_MISSING, "binding-missing: ...");
        AdmissionAnswer real = handler.handle(Webhook.KVCACHE_MUTATE,
                Reviews.bytes(Reviews.create("u-6", Reviews.optedInPod())));
        AdmissionAnswer dry = handler.handle(Webhook.KVCACHE_MUTATE,
                Reviews.bytes(Reviews.with(Reviews.create("u-6", Reviews.optedInPod()), "dryRun", true)));
        assertThat(dry).isEqualTo(real);
    }

    @Test
    void anUpdateOnTheMutatePathIsAdmittedUnchangedWithAWarningLogAndTheUseCaseIsNotAsked() {
        AdmissionAnswer answer = handler.handle(Webhook.KVCACHE_MUTATE,
                Reviews.bytes(Reviews.update("u-7", Reviews.optedInPod(), Reviews.optedInPod())));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.bodyText()).isEqualTo("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                + "\"response\":{\"uid\":\"u-7\",\"allowed\":true}}");
        assertThat(fakes.calls).isEmpty();
        assertThat(lastLog()).containsEntry("level", "warn").containsEntry("outcome", "admitted")
                .hasEntrySatisfying("note", n -> assertThat((String) n)
                        .contains("operation UPDATE is not reviewed on /kvcache/mutate"));
    }

    @Test
    void aCreateOnTheValidatePathIsAdmittedUnchanged() {
        AdmissionAnswer answer = handler.handle(Webhook.KVCACHE_VALIDATE,
                Reviews.bytes(Reviews.create("u-8", Reviews.optedInPod())));
        assertThat(Reviews.response(answer.body())).isEqualTo(Map.of("uid", "u-8", "allowed", true));
        assertThat(fakes.calls).isEmpty();
        assertThat(lastLog()).containsEntry("level", "warn");
    }

    @Test
    void anotherKindIsAdmittedUnchangedNever500() {
        Map<String, Object> review = Reviews.create("u-9", Map.of("apiVersion", "v1", "kind", "ConfigMap",
                "metadata", Map.of("name", "x")));
        Reviews.with(review, "kind", Map.of("group", "", "version", "v1", "kind", "ConfigMap"));

        AdmissionAnswer answer = handler.handle(Webhook.CACHEBLEND_MUTATE, Reviews.bytes(review));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(Reviews.response(answer.body())).containsEntry("allowed", true).doesNotContainKey("patch");
        assertThat(fakes.calls).isEmpty();
        assertThat(lastLog()).hasEntrySatisfying("note", n -> assertThat((String) n).contains("v1, Kind=ConfigMap"));
    }

    @Test
    void aSubresourceUpdateIsAdmittedUnchanged() {
        Map<String, Object> review = Reviews.update("u-10", Reviews.optedInPod(), Reviews.optedInPod());
        Reviews.with(review, "subResource", "status");
        assertThat(Reviews.response(handler.handle(Webhook.KVCACHE_VALIDATE, Reviews.bytes(review)).body()))
                .containsEntry("allowed", true);
        assertThat(fakes.calls).isEmpty();
    }

    @Test
    void aMalformedBodyIsA400WithAJsonErrorAndCountsAsAnError() {
        AdmissionAnswer answer = handler.handle(Webhook.KVCACHE_MUTATE, "{not json".getBytes(StandardCharsets.UTF_8));

        assertThat(answer.status()).isEqualTo(400);
        assertThat(Reviews.parse(answer.body())).containsEntry("error", "bad-request")
                .hasEntrySatisfying("message", m -> assertThat((String) m).startsWith("the body is not valid JSON"));
        assertThat(metrics.count(Webhook.KVCACHE_MUTATE, AdmissionOutcome.ERROR, "")).isEqualTo(1);
        assertThat(lastLog()).containsEntry("outcome", "error").containsEntry("httpStatus", 400L)
                .doesNotContainKey("reason");
    }

    @Test
    void aCreateWithoutItsObjectIsA400() {
        AdmissionAnswer answer = handler.handle(Webhook.KVCACHE_MUTATE,
                Reviews.bytes(Reviews.review("u-11", "CREATE", null, null)));
        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.bodyText()).contains("request.object is missing");
        assertThat(lastLog()).containsEntry("uid", "u-11");
    }

    @Test
    void anUpdateWithoutItsOldObjectIsA400() {
        AdmissionAnswer answer = handler.handle(Webhook.KVCACHE_VALIDATE,
                Reviews.bytes(Reviews.review("u-12", "UPDATE", Reviews.optedInPod(), null)));
        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.bodyText()).contains("request.oldObject is missing");
    }

    @Test
    void aFailingUseCaseOnAFailClosedWebhookIsDeniedInBandNot500() {
        fakes.kvCacheMutate = pod -> {
            throw new IllegalStateException("bug");
        };
        AdmissionAnswer answer = handler.handle(Webhook.KVCACHE_MUTATE,
                Reviews.bytes(Reviews.create("u-13", Reviews.optedInPod())));

        assertThat(answer.status()).isEqualTo(200);
        Map<String, Object> response = Reviews.response(answer.body());
        assertThat(response).containsEntry("allowed", false).doesNotContainKey("auditAnnotations");
        @SuppressWarnings("unchecked")
        Map<String, Object> status = (Map<String, Object>) response.get("status");
        assertThat(status).containsEntry("code", 500L).containsEntry("reason", "InternalError");
        assertThat((String) status.get("message")).contains("u-13").doesNotContain("IllegalStateException");
        assertThat(metrics.count(Webhook.KVCACHE_MUTATE, AdmissionOutcome.ERROR, "")).isEqualTo(1);
        assertThat(lastLog()).containsEntry("level", "error")
                .containsEntry("exception", "java.lang.IllegalStateException");
    }

    @Test
    void aFailingUseCaseOnAFailOpenWebhookIsAdmittedUnchangedWithAWarning() {
        fakes.kvCacheFreeze = pod -> {
            throw new NullPointerException();
        };
        AdmissionAnswer answer = handler.handle(Webhook.KVCACHE_VALIDATE,
                Reviews.bytes(Reviews.update("u-14", Reviews.optedInPod(), Reviews.optedInPod())));

        Map<String, Object> response = Reviews.response(answer.body());
        assertThat(response).containsEntry("allowed", true).doesNotContainKey("patch");
        assertThat((List<?>) response.get("warnings")).singleElement().asString().contains("u-14");
    }

    @Test
    void aPayloadTooLargeIsA413CountedAsAnError() {
        AdmissionAnswer answer = handler.payloadTooLarge(Webhook.CACHEBLEND_MUTATE, 3_145_728);
        assertThat(answer.status()).isEqualTo(413);
        assertThat(Reviews.parse(answer.body())).containsEntry("error", "payload-too-large")
                .hasEntrySatisfying("message", m -> assertThat((String) m).contains("3145728 bytes"));
        assertThat(metrics.count(Webhook.CACHEBLEND_MUTATE, AdmissionOutcome.ERROR, "")).isEqualTo(1);
    }

    @Test
    void aBrokenLogSinkDoesNotBreakTheAnswer() {
        AdmissionHandler h = new AdmissionHandler(fakes.useCases(), AdmissionHandler.DEFAULT_FAIL_OPEN, metrics,
                new JsonLog(line -> {
                    throw new IllegalStateException("disk full");
                }, Clock.systemUTC()));
        assertThat(h.handle(Webhook.KVCACHE_MUTATE, Reviews.bytes(Reviews.create("u", Reviews.optedInPod())))
                .status()).isEqualTo(200);
    }
}
