package io.kvcacheinjector.app.properties;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Pod through the fabric8 model and back: {@link Serialization#unmarshal(String, Class)} to
 * {@link io.fabric8.kubernetes.api.model.Pod}, then {@link Serialization#asJson(Object)}. Equal to the input modulo
 * what the model normalises (see {@link #normalised}), it shows that a typed Kubernetes client, like the API server,
 * decodes the patched Pod without losing or reshaping a field.
 */
final class Fabric8RoundTrip {
    private Fabric8RoundTrip() {
    }

    static JsonNode roundTrip(JsonNode pod) {
        Pod typed = Serialization.unmarshal(pod.toString(), Pod.class);
        return JsonTrees.parse(Serialization.asJson(typed));
    }

    /**
     * {@code pod} as the model writes it back, which differs from the input in exactly these ways (all of them
     * also what the API server's own encoding does, with {@code omitempty}): a member whose value is {@code null}
     * is left out, and so is an empty list or an empty map-typed member ({@code metadata.labels},
     * {@code metadata.annotations}); the key order of objects is not kept (JSON objects are unordered, and the
     * comparison ignores it). An empty object of a structured type, such as {@code emptyDir: {}}, is kept.
     */
    static JsonNode normalised(JsonNode pod) {
        JsonNode copy = pod.deepCopy();
        strip(copy, "");
        return copy;
    }

    private static void strip(JsonNode node, String path) {
        if (node instanceof ObjectNode object) {
            List<String> drop = new ArrayList<>();
            for (Map.Entry<String, JsonNode> e : object.properties()) {
                String child = path + "/" + e.getKey();
                strip(e.getValue(), child);
                JsonNode v = e.getValue();
                boolean mapTyped = child.equals("/metadata/labels") || child.equals("/metadata/annotations");
                if (v.isNull() || (v.isArray() && v.isEmpty()) || (mapTyped && v.isObject() && v.isEmpty())) {
                    drop.add(e.getKey());
                }
            }
            drop.forEach(object::remove);
        } else if (node != null && node.isArray()) {
            for (JsonNode element : node) {
                strip(element, path + "/*");
            }
        }
    }
}
