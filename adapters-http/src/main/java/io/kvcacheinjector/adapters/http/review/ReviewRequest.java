package io.kvcacheinjector.adapters.http.review;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The parts of an {@code admission.k8s.io/v1} AdmissionReview request this webhook reads. Absent optional
 * fields are empty strings or empty optionals, never null.
 *
 * @param uid          {@code request.uid}, echoed in the response
 * @param kind         {@code request.kind}, when the review carries it
 * @param subResource  {@code request.subResource}, empty for the Pod itself
 * @param operation    {@code request.operation} ({@code CREATE}, {@code UPDATE}, ...), empty when absent
 * @param namespace    {@code request.namespace}, empty when absent
 * @param name         {@code request.name}, empty when absent (the API server leaves it empty for generated names)
 * @param object       {@code request.object} as a plain JSON tree, empty when absent or JSON {@code null}
 * @param oldObject    {@code request.oldObject} as a plain JSON tree, empty when absent or JSON {@code null}
 * @param dryRun       {@code request.dryRun}; the answer is the same either way, since no review has side effects
 */
public record ReviewRequest(String uid, Optional<ResourceKind> kind, String subResource, String operation,
                            String namespace, String name, Optional<Object> object, Optional<Object> oldObject,
                            boolean dryRun) {

    public ReviewRequest {
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(subResource, "subResource");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(object, "object");
        Objects.requireNonNull(oldObject, "oldObject");
    }

    /** {@code request.kind}: the group, version and kind of the object under review. */
    public record ResourceKind(String group, String version, String kind) {
        public ResourceKind {
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(version, "version");
            Objects.requireNonNull(kind, "kind");
        }

        /** Whether this is the core Pod ({@code group ""}, kind {@code Pod}). */
        public boolean isPod() {
            return group.isEmpty() && kind.equals("Pod");
        }

        @Override
        public String toString() {
            return (group.isEmpty() ? "" : group + "/") + version + ", Kind=" + kind;
        }
    }

    /**
     * The object's {@code metadata.name}, else {@link #name()}; empty when neither is set (a Pod with
     * {@code generateName} on CREATE).
     */
    public String objectName() {
        String fromObject = metadataString("name");
        return fromObject.isEmpty() ? name : fromObject;
    }

    /** The object's {@code metadata.generateName}, empty when absent. */
    public String objectGenerateName() {
        return metadataString("generateName");
    }

    /** The object's top-level {@code kind} string, empty when absent or not a string. */
    public String objectKind() {
        return object.filter(Map.class::isInstance)
                .map(o -> ((Map<?, ?>) o).get("kind"))
                .filter(String.class::isInstance)
                .map(String.class::cast)
                .orElse("");
    }

    private String metadataString(String field) {
        return object.filter(Map.class::isInstance)
                .map(o -> ((Map<?, ?>) o).get("metadata"))
                .filter(Map.class::isInstance)
                .map(m -> ((Map<?, ?>) m).get(field))
                .filter(String.class::isInstance)
                .map(String.class::cast)
                .orElse("");
    }
}
