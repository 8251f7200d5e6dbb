package io.kvcacheinjector.domain.cluster;

import java.util.Map;
import java.util.Optional;

/** A Namespace as the CacheBlend webhook reads it: its name and labels (for the Pod Security level). */
public record NamespaceLabels(String name, Map<String, String> labels) {
    /** The Pod Security Admission enforce label. */
    public static final String PSS_ENFORCE = "pod-security.kubernetes.io/enforce";

    public NamespaceLabels {
        labels = Map.copyOf(labels);
    }

    /** The value of {@code pod-security.kubernetes.io/enforce}, when the namespace sets it. */
    public Optional<String> podSecurityEnforce() {
        return Optional.ofNullable(labels.get(PSS_ENFORCE));
    }
}
