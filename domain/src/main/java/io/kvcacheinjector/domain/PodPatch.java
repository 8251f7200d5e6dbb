package io.kvcacheinjector.domain;

import io.kvcacheinjector.domain.pod.Pod;
import java.util.List;
import java.util.Map;

/** The two JSON Patch shapes both contracts need: append to a list that may be absent, add annotations to a map that may be absent. */
public final class PodPatch {
    private PodPatch() {
    }

    /** Appends {@code values} to the list at {@code path}: element by element when it exists, else creates it whole. */
    public static void appendAll(List<PatchOp> ops, String path, boolean exists, List<Object> values) {
        if (values.isEmpty()) {
            return;
        }
        if (exists) {
            for (Object v : values) {
                ops.add(PatchOp.add(path + "/-", v));
            }
        } else {
            ops.add(PatchOp.add(path, List.copyOf(values)));
        }
    }

    /** Adds annotations, creating {@code metadata} or {@code metadata.annotations} when absent. */
    public static void addAnnotations(List<PatchOp> ops, Pod pod, Map<String, Object> annotations) {
        if (!pod.metadataPresent()) {
            ops.add(PatchOp.add("/metadata", Map.of("annotations", annotations)));
        } else if (!pod.annotationsPresent()) {
            ops.add(PatchOp.add("/metadata/annotations", annotations));
        } else {
            for (Map.Entry<String, Object> e : annotations.entrySet()) {
                ops.add(PatchOp.add("/metadata/annotations/" + PatchOp.escape(e.getKey()), e.getValue()));
            }
        }
    }
}
