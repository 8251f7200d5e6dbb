package io.kvcacheinjector.domain.pod;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A container as the webhooks read it. {@code index} is its position in {@code spec.containers} (or
 * {@code spec.initContainers}); optional lists are empty when the field is absent, which decides whether a
 * patch creates the list or appends to it.
 */
public record Container(
        int index,
        String name,
        Optional<List<String>> command,
        Optional<List<String>> args,
        Optional<List<EnvVar>> env,
        List<EnvFromSource> envFrom,
        Optional<List<VolumeMount>> volumeMounts) {

    public Container {
        command = command.map(List::copyOf);
        args = args.map(List::copyOf);
        env = env.map(List::copyOf);
        envFrom = List.copyOf(envFrom);
        volumeMounts = volumeMounts.map(List::copyOf);
    }

    /** {@code command} followed by {@code args}: the argv Kubernetes runs when {@code command} is set. */
    public List<String> argv() {
        List<String> out = new ArrayList<>(command.orElse(List.of()));
        out.addAll(args.orElse(List.of()));
        return out;
    }

    /** The env entries, or none. */
    public List<EnvVar> envOrEmpty() {
        return env.orElse(List.of());
    }

    /** The mounts, or none. */
    public List<VolumeMount> mountsOrEmpty() {
        return volumeMounts.orElse(List.of());
    }

    /** Whether {@code env} has an entry of that exact name. */
    public boolean hasEnv(String name) {
        for (EnvVar e : envOrEmpty()) {
            if (e.name().equals(name)) {
                return true;
            }
        }
        return false;
    }
}
