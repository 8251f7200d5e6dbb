package io.kvcacheinjector.app.properties;

import com.fasterxml.jackson.databind.JsonNode;
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

    /** The JSON pointers where {@code after} differs from {@code before}, by a structural diff (no move or copy). */
    static List<String> changedPaths(JsonNode before, JsonNode after) {
        List<String> paths = new ArrayList<>();
        for (JsonNode op : JsonDiff.asJson(before, after, DiffFlags.dontNormalizeOpIntoMoveAndCopy())) {
            paths.add(op.get("path").asText());
        }
        return paths;
    }

    /** The paths the patch's own operations name. */
    static List<String> opPaths(List<PatchOp> patch) {
        return patch.stream().map(PatchOp::path).toList();
    }
}
