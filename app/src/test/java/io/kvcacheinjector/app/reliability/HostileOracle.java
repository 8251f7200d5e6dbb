package io.kvcacheinjector.app.reliability;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.fabric8.zjsonpatch.JsonPatch;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.domain.cacheblend.CacheBlendKeys;
import io.kvcacheinjector.domain.json.Json;
import io.kvcacheinjector.domain.kvcache.KvCacheKeys;
import io.kvcacheinjector.domain.pod.PodReader;
import io.kvcacheinjector.domain.pod.PodReading;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Base64;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Judges one answer to one hostile review. Three levels:
 *
 * <ol>
 *   <li>Always: 200, 400 or 413 (413 exactly when the body is over the limit), never a 500, a timeout or another
 *       status; a 400/413 is a JSON error with a message; a 200 is an AdmissionReview response with a uid, whose
 *       refusal names catalogue codes and a message; no use case failed internally (neither the {@code InternalError}
 *       denial nor the fail-open admission with the "failed internally" warning).</li>
 *   <li>Safety of the kvcache mutate path: a patch is only ever given to a Pod that opts in and reads as a Pod, and
 *       it applies to that Pod and leaves it readable and recorded ({@code kvcache.gpustack.ai/injected}).</li>
 *   <li>Exact answers where the input decides them: not one JSON text, a duplicate key or nesting over 256: 400;
 *       with the envelope as the API server writes it, a Pod that does not opt in is admitted unchanged, one that
 *       opts in and cannot be read is refused {@code pod-unreadable} naming the field, one that opts in and reads is
 *       patched or refused with a catalogue code.</li>
 * </ol>
 *
 * The oracle decodes the body as strict JSON with Jackson (duplicate keys refused, one value only), independently of
 * the server's reader.
 */
final class HostileOracle {
    private static final ObjectMapper STRICT = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(2_000).build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private static final Set<String> CODES = Arrays.stream(ReasonCode.values()).map(ReasonCode::id)
            .collect(Collectors.toUnmodifiableSet());
    private static final String FAILED_INTERNALLY = "failed internally";

    private HostileOracle() {
    }

    /** Why the answer is wrong, or empty. */
    static Optional<String> check(HostileReviews.Case c, int status, byte[] answer) {
        String text = new String(answer, StandardCharsets.UTF_8);
        boolean tooLarge = c.body().length > HostileReviews.LIMIT;
        if (tooLarge) {
            return status == 413 && errorBody(text, "payload-too-large")
                    ? Optional.empty() : Optional.of("expected 413 payload-too-large, got " + status + " " + clip(text));
        }
        Optional<Object> tree = strictTree(c.body());
        boolean wellFormed = tree.isPresent() && depth(tree.get()) <= HostileReviews.MAX_DEPTH;
        if (status == 400) {
            if (!errorBody(text, "bad-request")) {
                return Optional.of("a 400 without a JSON bad-request error and message: " + clip(text));
            }
            if (wellFormed && c.envelopeIntact()) {
                return Optional.of("a well-formed review with the API server's envelope got a 400: " + clip(text));
            }
            return Optional.empty();
        }
        if (status != 200) {
            return Optional.of("status " + status + ": " + clip(text));
        }
        if (!wellFormed) {
            return Optional.of(tree.isEmpty() ? "a body that is not one strict JSON text was answered 200: " + clip(text)
                    : "a body nested deeper than 256 was answered 200");
        }
        Map<String, Object> response;
        try {
            response = response(text);
        } catch (RuntimeException e) {
            return Optional.of("the 200 is not an AdmissionReview response: " + e.getMessage() + ": " + clip(text));
        }
        if (!(response.get("uid") instanceof String uid) || uid.isEmpty()) {
            return Optional.of("the response has no uid: " + clip(text));
        }
        if (!(response.get("allowed") instanceof Boolean allowed)) {
            return Optional.of("the response has no allowed: " + clip(text));
        }
        Optional<String> shape = allowed ? admittedShape(response) : refusedShape(response);
        if (shape.isPresent()) {
            return shape;
        }
        Map<String, Object> request = map(map(tree.get()).get("request"));
        Object object = request.get("object");
        Optional<List<Object>> patch = patch(response);
        if (c.webhook() == Webhook.KVCACHE_MUTATE && allowed && patch.isPresent()) {
            Optional<String> unsafe = kvcachePatchIsSafe(object, patch.get());
            if (unsafe.isPresent()) {
                return unsafe;
            }
        }
        if (c.webhook() == Webhook.KVCACHE_VALIDATE && patch.isPresent()) {
            return Optional.of("the freeze answered with a patch");
        }
        if (c.envelopeIntact()) {
            if (!c.uid().equals(response.get("uid"))) {
                return Optional.of("uid " + response.get("uid") + " answered for " + c.uid());
            }
            return exact(c, request, response, allowed, patch);
        }
        return Optional.empty();
    }

    private static Optional<String> exact(HostileReviews.Case c, Map<String, Object> request,
                                          Map<String, Object> response, boolean allowed,
                                          Optional<List<Object>> patch) {
        Object object = request.get("object");
        switch (c.webhook()) {
            case KVCACHE_MUTATE -> {
                if (!kvcacheOptedIn(object)) {
                    return unchanged(response, "a Pod that does not opt in");
                }
                if (PodReader.read(object) instanceof PodReading.Unreadable u) {
                    return podUnreadable(response, u.problem());
                }
                if (allowed && patch.isEmpty()) {
                    return Optional.of("an opted-in, readable Pod was admitted without a patch: " + response);
                }
            }
            case CACHEBLEND_MUTATE -> {
                if (!CacheBlendKeys.isTrue(label(object, CacheBlendKeys.LABEL_INJECT))) {
                    return unchanged(response, "a Pod that does not opt in to CacheBlend");
                }
                if (PodReader.read(object) instanceof PodReading.Unreadable u) {
                    return podUnreadable(response, u.problem());
                }
            }
            case KVCACHE_VALIDATE -> {
                Object old = request.get("oldObject");
                boolean involved = kvcacheOptedIn(old) || kvcacheOptedIn(object);
                Optional<String> problem = PodReader.read(old) instanceof PodReading.Unreadable u ? Optional.of(u.problem())
                        : PodReader.read(object) instanceof PodReading.Unreadable u2 ? Optional.of(u2.problem())
                        : Optional.empty();
                if (problem.isPresent()) {
                    return involved ? podUnreadable(response, problem.get())
                            : unchanged(response, "an unreadable update of a Pod that does not opt in");
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> unchanged(Map<String, Object> response, String what) {
        if (!Boolean.TRUE.equals(response.get("allowed")) || response.size() != 2) {
            return Optional.of(what + " must be admitted unchanged (uid and allowed only): " + clip(Json.write(response)));
        }
        return Optional.empty();
    }

    private static Optional<String> podUnreadable(Map<String, Object> response, String problem) {
        if (Boolean.TRUE.equals(response.get("allowed"))) {
            return Optional.of("an opted-in Pod that cannot be read (" + problem + ") was ADMITTED: "
                    + clip(Json.write(response)));
        }
        String refusal = String.valueOf(map(response.get("auditAnnotations")).get("refusal"));
        String message = String.valueOf(map(response.get("status")).get("message"));
        if (!refusal.equals(ReasonCode.POD_UNREADABLE.id()) || !message.startsWith("pod-unreadable: ")
                || !message.contains(problem)) {
            return Optional.of("expected pod-unreadable naming \"" + problem + "\", got " + refusal + ": " + clip(message));
        }
        return Optional.empty();
    }

    private static Optional<String> kvcachePatchIsSafe(Object object, List<Object> patch) {
        if (!kvcacheOptedIn(object)) {
            return Optional.of("a Pod that does not opt in was patched");
        }
        if (PodReader.read(object) instanceof PodReading.Unreadable u) {
            return Optional.of("a Pod that cannot be read (" + u.problem() + ") was patched");
        }
        JsonNode patched;
        try {
            patched = JsonPatch.apply(STRICT.valueToTree(patch), STRICT.valueToTree(withoutAmplification(object, patch)));
        } catch (RuntimeException e) {
            return Optional.of("the patch does not apply to the Pod: " + e.getMessage());
        }
        Object result = STRICT.convertValue(patched, Object.class);
        if (PodReader.read(result) instanceof PodReading.Unreadable u) {
            return Optional.of("the patched Pod cannot be read: " + u.problem());
        }
        Object annotations = map(map(map(result).get("metadata")).get("annotations")).get(KvCacheKeys.INJECTED);
        if (!(annotations instanceof String)) {
            return Optional.of("the patched Pod carries no " + KvCacheKeys.INJECTED + " record");
        }
        return Optional.empty();
    }

    /**
     * The object without the generator's {@code spec.x-amplify} list when no patch operation touches it: hundreds of
     * thousands of empty objects nobody reads, which would make applying the patch here take seconds.
     */
    private static Object withoutAmplification(Object object, List<Object> patch) {
        Map<String, Object> spec = map(map(object).get("spec"));
        boolean touched = patch.stream().anyMatch(op -> String.valueOf(map(op).get("path")).startsWith("/spec/x-amplify"));
        if (!spec.containsKey("x-amplify") || touched) {
            return object;
        }
        Map<String, Object> copy = new java.util.LinkedHashMap<>(map(object));
        Map<String, Object> specCopy = new java.util.LinkedHashMap<>(spec);
        specCopy.remove("x-amplify");
        copy.put("spec", specCopy);
        return copy;
    }

    private static Optional<String> admittedShape(Map<String, Object> response) {
        if (response.get("warnings") instanceof List<?> warnings) {
            for (Object w : warnings) {
                if (String.valueOf(w).contains(FAILED_INTERNALLY)) {
                    return Optional.of("a use case failed (admitted by fail-open): " + w);
                }
            }
        }
        if (response.containsKey("patch")) {
            if (!"JSONPatch".equals(response.get("patchType"))) {
                return Optional.of("a patch without patchType JSONPatch");
            }
            try {
                patch(response).orElseThrow();
            } catch (RuntimeException e) {
                return Optional.of("the patch is not a base64 JSON array: " + e.getMessage());
            }
        }
        return Optional.empty();
    }

    private static Optional<String> refusedShape(Map<String, Object> response) {
        Map<String, Object> status = map(response.get("status"));
        if (!(status.get("message") instanceof String message) || message.isBlank()) {
            return Optional.of("a refusal without a message: " + clip(Json.write(response)));
        }
        if (!Long.valueOf(403).equals(status.get("code"))) {
            return Optional.of("a denial with code " + status.get("code") + " (a use case failed?): " + clip(message));
        }
        Object refusal = map(response.get("auditAnnotations")).get("refusal");
        if (!(refusal instanceof String codes) || codes.isEmpty()) {
            return Optional.of("a refusal without its codes: " + clip(message));
        }
        for (String code : codes.split(",")) {
            if (!CODES.contains(code)) {
                return Optional.of("a refusal with the unknown code " + code);
            }
            if (!message.contains(code)) {
                return Optional.of("the message does not name " + code + ": " + clip(message));
            }
        }
        return Optional.empty();
    }

    @SuppressWarnings("unchecked")
    private static Optional<List<Object>> patch(Map<String, Object> response) {
        if (!(response.get("patch") instanceof String encoded)) {
            return Optional.empty();
        }
        String json = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
        Object ops = Json.parse(json).orElseThrow(() -> new IllegalArgumentException("not JSON: " + clip(json)));
        if (!(ops instanceof List<?> list) || list.isEmpty()) {
            throw new IllegalArgumentException("not a non-empty array");
        }
        return Optional.of((List<Object>) list);
    }

    /** The AdmissionReview's {@code response}, with the envelope checked. */
    private static Map<String, Object> response(String text) {
        Map<String, Object> review = map(Json.parse(text).orElseThrow(() -> new IllegalArgumentException("not JSON")));
        if (!"admission.k8s.io/v1".equals(review.get("apiVersion")) || !"AdmissionReview".equals(review.get("kind"))) {
            throw new IllegalArgumentException("not an admission.k8s.io/v1 AdmissionReview");
        }
        if (!(review.get("response") instanceof Map<?, ?>)) {
            throw new IllegalArgumentException("no response");
        }
        return map(review.get("response"));
    }

    private static boolean errorBody(String text, String error) {
        Optional<Object> parsed = Json.parse(text);
        return parsed.isPresent() && parsed.get() instanceof Map<?, ?> m && error.equals(m.get("error"))
                && m.get("message") instanceof String message && !message.isBlank();
    }

    /** The body as one strict JSON text, or empty. */
    static Optional<Object> strictTree(byte[] body) {
        try {
            return Optional.ofNullable(STRICT.readValue(body, Object.class)).or(() -> Optional.of(Json.NULL));
        } catch (Exception | StackOverflowError e) {
            return Optional.empty();
        }
    }

    /** The nesting depth of a tree (a scalar is 0, {@code []} is 1). */
    static int depth(Object root) {
        int max = 0;
        Deque<Map.Entry<Object, Integer>> stack = new ArrayDeque<>();
        stack.push(Map.entry(root, 0));
        while (!stack.isEmpty()) {
            Map.Entry<Object, Integer> e = stack.pop();
            Object v = e.getKey();
            if (v instanceof Map<?, ?> m) {
                max = Math.max(max, e.getValue() + 1);
                m.values().forEach(child -> stack.push(Map.entry(child == null ? Json.NULL : child, e.getValue() + 1)));
            } else if (v instanceof List<?> l) {
                max = Math.max(max, e.getValue() + 1);
                l.forEach(child -> stack.push(Map.entry(child == null ? Json.NULL : child, e.getValue() + 1)));
            }
        }
        return max;
    }

    /** The kvcache gate on the raw object: {@code metadata.labels["kvcache.gpustack.ai/inject"] == "true"}. */
    static boolean kvcacheOptedIn(Object object) {
        return "true".equals(label(object, KvCacheKeys.LABEL_INJECT));
    }

    private static String label(Object object, String key) {
        Object value = map(map(map(object).get("metadata")).get("labels")).get(key);
        return value instanceof String s ? s : null;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    static String clip(String s) {
        return s.length() <= 400 ? s : s.substring(0, 400) + "...(" + s.length() + " chars)";
    }
}
