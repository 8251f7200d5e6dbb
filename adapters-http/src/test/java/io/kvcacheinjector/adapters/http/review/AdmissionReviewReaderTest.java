package io.kvcacheinjector.adapters.http.review;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.testing.Reviews;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AdmissionReviewReaderTest {
    private final AdmissionReviewReader reader = new AdmissionReviewReader();

    private ReviewReading read(String json) {
        return reader.read(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String unreadable(ReviewReading r) {
        assertThat(r).isInstanceOf(ReviewReading.Unreadable.class);
        return ((ReviewReading.Unreadable) r).message();
    }

    @Test
    void readsTheRequestFieldsAndThePodAsAPlainTree() {
        Map<String, Object> pod = Reviews.optedInPod();
        ReviewReading r = reader.read(Reviews.bytes(Reviews.with(Reviews.create("u-1", pod), "dryRun", true)));

        assertThat(r).isInstanceOf(ReviewReading.Readable.class);
        ReviewRequest req = ((ReviewReading.Readable) r).request();
        assertThat(req.uid()).isEqualTo("u-1");
        assertThat(req.operation()).isEqualTo("CREATE");
        assertThat(req.namespace()).isEqualTo("team-a");
        assertThat(req.kind()).contains(new ReviewRequest.ResourceKind("", "v1", "Pod"));
        assertThat(req.dryRun()).isTrue();
        assertThat(req.object()).contains(pod);
        assertThat(req.oldObject()).isEmpty();
        assertThat(req.objectName()).isEqualTo("chat-0");
    }

    @Test
    void decodesNumbersAsLongAndBigDecimalLikeTheDomainJson() {
        ReviewRequest req = ((ReviewReading.Readable) read("""
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u",
                 "object":{"spec":{"terminationGracePeriodSeconds":30,"x":1.50,"big":123456789012345678901234567890}}}}
                """)).request();
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) ((Map<String, Object>) req.object().orElseThrow()).get("spec");
        assertThat(spec.get("terminationGracePeriodSeconds")).isEqualTo(30L);
        assertThat(spec.get("x")).isEqualTo(new BigDecimal("1.50"));
        assertThat(spec.get("big")).hasToString("123456789012345678901234567890");
    }

    @Test
    void anObjectThatIsNotAMapIsPassedOnForTheUseCaseToJudge() {
        ReviewRequest req = ((ReviewReading.Readable) read("""
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":"pod"}}
                """)).request();
        assertThat(req.object()).contains("pod");
    }

    @Test
    void rejectsDuplicateKeysEvenDeepInsideThePod() {
        String message = unreadable(read("""
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u",
                 "object":{"metadata":{"labels":{"a":"1","a":"2"}}}}}
                """));
        assertThat(message).startsWith("the body is not valid JSON").contains("Duplicate field 'a'").contains("line 2");
    }

    @Test
    void rejectsNestingDeeperThanTheLimit() {
        String deep = "[".repeat(AdmissionReviewReader.MAX_NESTING_DEPTH + 5)
                + "]".repeat(AdmissionReviewReader.MAX_NESTING_DEPTH + 5);
        String message = unreadable(read("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                + "\"request\":{\"uid\":\"u\",\"object\":" + deep + "}}"));
        assertThat(message).contains("deeper than " + AdmissionReviewReader.MAX_NESTING_DEPTH);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "empty body|''|the body is empty",
            "not JSON|'{\"apiVersion\": '|the body is not valid JSON",
            "trailing garbage|'{\"apiVersion\":\"admission.k8s.io/v1\"} x'|the body is not valid JSON",
            "an array|'[1,2]'|the body is an array, not an AdmissionReview object",
            "v1beta1|'{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\"}}'|apiVersion is \"admission.k8s.io/v1beta1\"; this webhook answers only admission.k8s.io/v1",
            "no apiVersion|'{\"kind\":\"AdmissionReview\"}'|apiVersion is missing",
            "wrong kind|'{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"Pod\"}'|kind is \"Pod\"; expected AdmissionReview",
            "no request|'{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}'|request is missing",
            "request not object|'{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":[]}'|request is an array, not an object",
            "no uid|'{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{}}'|request.uid is missing",
            "blank uid|'{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\" \"}}'|request.uid must be a non-empty string",
            "numeric uid|'{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":7}}'|request.uid must be a non-empty string, not a number",
            "operation type|'{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"operation\":1}}'|request.operation is a number, not a string",
            "kind type|'{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"kind\":\"Pod\"}}'|request.kind is a string, not an object",
            "dryRun type|'{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\",\"dryRun\":\"yes\"}}'|request.dryRun is a string, not a boolean",
    })
    void rejectsWhatIsNotAUsableReviewAndSaysWhat(String name, String body, String expected) {
        assertThat(unreadable(read(body))).contains(expected);
    }

    @Test
    void keepsTheUidOfAReviewRejectedAfterItWasRead() {
        ReviewReading r = read("""
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-9","namespace":3}}
                """);
        assertThat(r).isEqualTo(new ReviewReading.Unreadable("request.namespace is a number, not a string", "u-9"));
    }

    @Test
    void absentOptionalFieldsAreEmptyNotNull() {
        ReviewRequest req = ((ReviewReading.Readable) read("""
                {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":null}}
                """)).request();
        assertThat(List.of(req.operation(), req.namespace(), req.name(), req.subResource())).containsOnly("");
        assertThat(req.object()).isEmpty();
        assertThat(req.kind()).isEmpty();
        assertThat(req.dryRun()).isFalse();
    }
}
