package io.kvcacheinjector.app.properties;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.zjsonpatch.CompatibilityFlags;
import io.fabric8.zjsonpatch.DiffFlags;
import io.fabric8.zjsonpatch.JsonDiff;
import io.fabric8.zjsonpatch.JsonPatch;
import io.kvcacheinjector.adapters.http.review.AdmissionResponseWriter;
import io.kvcacheinjector.domain.PatchOp;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * A patch as the API server receives it (the bytes the HTTP adapter writes) and as it applies it (RFC 6902, with
 * zjsonpatch in its strictest mode: removing a member that is not there fails).
 */
final class Patches {
    private Patches() {
    }

    /** The RFC 6902 document exactly as {@link AdmissionResponseWriter} renders it, parsed by Jackson. */
    static JsonNode document(List<PatchOp> patch) {
        return JsonTrees.parse(AdmissionResponseWriter.patchJson(patch));
    }

    /** {@code original} with the patch applied; {@code original} itself is left alone. */
    static JsonNode apply(List<PatchOp> patch, JsonNode original) {
        return JsonPatch.apply(document(patch), original.deepCopy(), EnumSet.of(CompatibilityFlags.FORBID_REMOVE_MISSING_OBJECT));
    }

    /**
     * The JSON pointers where {@code after} differs from {@code before}, by a structural diff (no move or copy). When
     * both have the same number of app containers, the containers are compared index by index: a diff of a list that
     * holds two equal containers may otherwise align them either way and report a whole container as replaced.
     */
    static List<String> changedPaths(JsonNode before, JsonNode after) {
        JsonNode was = before.path("spec").path("containers");
        JsonNode is = after.path("spec").path("containers");
        if (!was.isArray() || !is.isArray() || was.size() != is.size()) {
            return diff("", before, after);
        }
        List<String> paths = new ArrayList<>(diff("", withoutContainers(before), withoutContainers(after)));
        for (int i = 0; i < was.size(); i++) {
            paths.addAll(diff("/spec/containers/" + i, was.get(i), is.get(i)));
        }
        return paths;
    }

    private static List<String> diff(String prefix, JsonNode before, JsonNode after) {
        List<String> paths = new ArrayList<>();
        for (JsonNode op : JsonDiff.asJson(before, after, DiffFlags.dontNormalizeOpIntoMoveAndCopy())) {
            paths.add(prefix + op.get("path").asText());
        }
        return paths;
    }

    private static JsonNode withoutContainers(JsonNode pod) {
        JsonNode copy = pod.deepCopy();
        if (copy.path("spec") instanceof ObjectNode spec) {
            spec.remove("containers");
        }
        return copy;
    }

    /** The paths the patch's own operations name. */
    static List<String> opPaths(List<PatchOp> patch) {
        return patch.stream().map(PatchOp::path).toList();
    }
}
