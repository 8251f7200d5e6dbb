package io.kvcacheinjector.domain.pod;

import io.kvcacheinjector.domain.text.MessageText;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The read-model of a Pod (or a workload's Pod template) that the webhooks need. Built by {@link PodReader}
 * from the object exactly as received; every decision is made on this value and rendered as a JSON Patch
 * against the original object.
 *
 * @param metadataPresent whether the object has a {@code metadata} map at all (a patch must create it otherwise)
 * @param annotationsPresent whether {@code metadata.annotations} exists (a patch must create it otherwise)
 */
public record Pod(
        Optional<String> namespace,
        Optional<String> name,
        Optional<String> generateName,
        Map<String, String> labels,
        Map<String, String> annotations,
        boolean metadataPresent,
        boolean annotationsPresent,
        List<Container> containers,
        List<Container> initContainers,
        Optional<List<Volume>> volumes,
        boolean hostIPC,
        Optional<List<String>> imagePullSecrets) {

    public Pod {
        labels = Map.copyOf(labels);
        annotations = Map.copyOf(annotations);
        containers = List.copyOf(containers);
        initContainers = List.copyOf(initContainers);
        volumes = volumes.map(List::copyOf);
        imagePullSecrets = imagePullSecrets.map(List::copyOf);
    }

    /** A label's value. */
    public Optional<String> label(String key) {
        return Optional.ofNullable(labels.get(key));
    }

    /** An annotation's value. */
    public Optional<String> annotation(String key) {
        return Optional.ofNullable(annotations.get(key));
    }

    /** The app container with that name. */
    public Optional<Container> container(String name) {
        return containers.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    /** The Pod's volumes, or none. */
    public List<Volume> volumesOrEmpty() {
        return volumes.orElse(List.of());
    }

    /** How messages name the Pod: {@code namespace/name}, falling back to {@code generateName} and then {@code (unnamed)}. */
    public String displayName(String requestNamespace) {
        String ns = namespace.filter(s -> !s.isEmpty()).orElse(requestNamespace);
        String n = name.filter(s -> !s.isEmpty())
                .or(() -> generateName.filter(s -> !s.isEmpty()).map(g -> g + "*"))
                .orElse("(unnamed)");
        String shown = ns == null || ns.isEmpty() ? n : ns + "/" + n;
        // names come from the object before the API server validated it: show stray characters escaped, quoted
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 || c == '"' || c == ' ') {
                return MessageText.quote(shown);
            }
        }
        return shown;
    }
}
