package io.kvcacheinjector.app.reliability;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.kvcacheinjector.domain.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * AdmissionReviews of the README's example Pods ({@code docs/examples/pods}), as the API server would send them for
 * the example cluster ({@code docs/examples/cluster}): what the reliability tests send when they need a review with a
 * known answer, and what {@link HostileReviews} damages.
 */
final class ExampleReviews {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private ExampleReviews() {
    }

    /** The vLLM Pod (admitted with a patch on the example cluster). */
    static Map<String, Object> vllmPod() {
        return pod("vllm.yaml");
    }

    /**
     * A Pod of {@code docs/examples/pods}; a Deployment gives its template as Pod {@code team-a/<name>-0}. A fresh,
     * mutable copy each time.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> pod(String file) {
        try {
            Map<String, Object> doc = YAML.readValue(Path.of("..", "docs", "examples", "pods", file).toFile(), Map.class);
            if ("Deployment".equals(doc.get("kind"))) {
                Map<String, Object> template = (Map<String, Object>) ((Map<String, Object>) doc.get("spec")).get("template");
                Map<String, Object> pod = new LinkedHashMap<>();
                pod.put("apiVersion", "v1");
                pod.put("kind", "Pod");
                Map<String, Object> metadata = new LinkedHashMap<>((Map<String, Object>) template.get("metadata"));
                metadata.put("name", ((Map<String, Object>) doc.get("metadata")).get("name") + "-0");
                metadata.put("namespace", "team-a");
                pod.put("metadata", metadata);
                pod.put("spec", template.get("spec"));
                doc = pod;
            }
            return copy(doc);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A Pod review in namespace {@code team-a} as the API server writes it; {@code oldObject} left out when null. */
    static Map<String, Object> review(String uid, String operation, Object object, Object oldObject) {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("uid", uid);
        request.put("kind", new LinkedHashMap<>(Map.of("group", "", "version", "v1", "kind", "Pod")));
        request.put("resource", new LinkedHashMap<>(Map.of("group", "", "version", "v1", "resource", "pods")));
        request.put("namespace", "team-a");
        request.put("operation", operation);
        request.put("userInfo", Map.of("username", "system:serviceaccount:kube-system:replicaset-controller"));
        request.put("object", object);
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

    /** A CREATE review of {@code pod} as UTF-8 JSON. */
    static byte[] create(String uid, Map<String, Object> pod) {
        return bytes(review(uid, "CREATE", pod, null));
    }

    /** An UPDATE review (old and new the same Pod) as UTF-8 JSON. */
    static byte[] update(String uid, Map<String, Object> pod) {
        return bytes(review(uid, "UPDATE", pod, copy(pod)));
    }

    static byte[] bytes(Object review) {
        return Json.write(review).getBytes(StandardCharsets.UTF_8);
    }

    /** A deep, mutable copy (maps, lists and scalars; integers as Long). */
    @SuppressWarnings("unchecked")
    static <T> T copy(T value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put(String.valueOf(k), copy(v)));
            return (T) out;
        }
        if (value instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            l.forEach(v -> out.add(copy(v)));
            return (T) out;
        }
        if (value instanceof Integer i) {
            return (T) Long.valueOf(i);
        }
        return value;
    }
}
