package io.kvcacheinjector.adapters.http.testing;

import io.kvcacheinjector.domain.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds AdmissionReview request bodies and Pods for tests. */
public final class Reviews {
    private Reviews() {
    }

    /** A Pod named {@code name} in {@code namespace} with {@code labels}, one container {@code server}. */
    public static Map<String, Object> pod(String namespace, String name, Map<String, String> labels) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", name);
        metadata.put("namespace", namespace);
        metadata.put("labels", new LinkedHashMap<>(labels));
        Map<String, Object> container = new LinkedHashMap<>();
        container.put("name", "server");
        container.put("image", "vllm/vllm-openai:v0.11.0");
        container.put("command", List.of("vllm", "serve", "Qwen/Qwen3-8B"));
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("containers", List.of(container));
        Map<String, Object> pod = new LinkedHashMap<>();
        pod.put("apiVersion", "v1");
        pod.put("kind", "Pod");
        pod.put("metadata", metadata);
        pod.put("spec", spec);
        return pod;
    }

    /** An opted-in Pod {@code team-a/chat-0}. */
    public static Map<String, Object> optedInPod() {
        return pod("team-a", "chat-0", Map.of("kvcache.gpustack.ai/inject", "true"));
    }

    /** A Pod CREATE review. */
    public static Map<String, Object> create(String uid, Object pod) {
        return review(uid, "CREATE", pod, null);
    }

    /** A Pod UPDATE review. */
    public static Map<String, Object> update(String uid, Object oldPod, Object newPod) {
        return review(uid, "UPDATE", newPod, oldPod);
    }

    /** A Pod review with {@code operation}; {@code object}/{@code oldObject} left out when null. */
    public static Map<String, Object> review(String uid, String operation, Object object, Object oldObject) {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("uid", uid);
        request.put("kind", Map.of("group", "", "version", "v1", "kind", "Pod"));
        request.put("resource", Map.of("group", "", "version", "v1", "resource", "pods"));
        request.put("namespace", "team-a");
        request.put("operation", operation);
        request.put("userInfo", Map.of("username", "system:serviceaccount:kube-system:replicaset-controller"));
        if (object != null) {
            request.put("object", object);
        }
        if (oldObject != null) {
            request.put("oldObject", oldObject);
        }
        request.put("dryRun", false);
        Map<String, Object> review = new LinkedHashMap<>();
        review.put("apiVersion", "admission.k8s.io/v1");
        review.put("kind", "AdmissionReview");
        review.put("request", request);
        return review;
    }

    /** Sets {@code request.<key>} and returns the review. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> with(Map<String, Object> review, String key, Object value) {
        ((Map<String, Object>) review.get("request")).put(key, value);
        return review;
    }

    /** The review as UTF-8 JSON bytes. */
    public static byte[] bytes(Object review) {
        return Json.write(review).getBytes(StandardCharsets.UTF_8);
    }

    /** Parses a response body into a tree. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parse(byte[] body) {
        return (Map<String, Object>) Json.parse(new String(body, StandardCharsets.UTF_8)).orElseThrow(
                () -> new AssertionError("not JSON: " + new String(body, StandardCharsets.UTF_8)));
    }

    /** {@code response} of a parsed AdmissionReview response. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> response(byte[] body) {
        Map<String, Object> review = parse(body);
        return (Map<String, Object>) review.get("response");
    }
}
