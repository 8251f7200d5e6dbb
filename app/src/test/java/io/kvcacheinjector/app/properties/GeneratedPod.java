package io.kvcacheinjector.app.properties;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One generated admission input: the request's namespace and the Pod as the API server would send it, a plain
 * mutable JSON tree (the shapes Jackson decodes into). Printed as JSON, so a falsified sample can be replayed.
 */
record GeneratedPod(String requestNamespace, Map<String, Object> object) {

    @Override
    public String toString() {
        return "namespace " + requestNamespace + ", Pod " + JsonTrees.text(object);
    }

    /** The uid of every review built here. */
    static final String REVIEW_UID = "0f8e7d6c-5b4a-4392-8170-a1b2c3d4e5f6";

    /** The same Pod decoded afresh, as a second delivery of the same review would be. */
    @SuppressWarnings("unchecked")
    GeneratedPod copy() {
        return new GeneratedPod(requestNamespace, (Map<String, Object>) JsonTrees.reparsed(object));
    }

    /** The CREATE AdmissionReview the API server sends for this Pod, as bytes. */
    byte[] review() {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("uid", REVIEW_UID);
        request.put("kind", Map.of("group", "", "version", "v1", "kind", "Pod"));
        request.put("resource", Map.of("group", "", "version", "v1", "resource", "pods"));
        request.put("namespace", requestNamespace);
        request.put("operation", "CREATE");
        request.put("userInfo", Map.of("username", "system:serviceaccount:kube-system:replicaset-controller"));
        request.put("object", object);
        request.put("dryRun", false);
        Map<String, Object> review = new LinkedHashMap<>();
        review.put("apiVersion", "admission.k8s.io/v1");
        review.put("kind", "AdmissionReview");
        review.put("request", request);
        return JsonTrees.text(review).getBytes(StandardCharsets.UTF_8);
    }

    Optional<String> annotation(String key) {
        return stringAt(metadata().get("annotations"), key);
    }

    Optional<String> label(String key) {
        return stringAt(metadata().get("labels"), key);
    }

    /** The Pod's own namespace when it names a non-empty one, else the request's (as the kvcache use case reads it). */
    String effectiveNamespace() {
        return metadata().get("namespace") instanceof String s && !s.isEmpty() ? s : requestNamespace;
    }

    /** The names of the app containers, in order. */
    List<String> containerNames() {
        return names("containers");
    }

    List<String> initContainerNames() {
        return names("initContainers");
    }

    private List<String> names(String field) {
        if (object.get("spec") instanceof Map<?, ?> spec && spec.get(field) instanceof List<?> list) {
            return list.stream().map(c -> c instanceof Map<?, ?> m && m.get("name") instanceof String s ? s : "").toList();
        }
        return List.of();
    }

    private Map<?, ?> metadata() {
        return object.get("metadata") instanceof Map<?, ?> m ? m : Map.of();
    }

    private static Optional<String> stringAt(Object map, String key) {
        return map instanceof Map<?, ?> m && m.get(key) instanceof String s ? Optional.of(s) : Optional.empty();
    }
}
