package io.kvcacheinjector.domain.kvcache;

import java.util.List;
import java.util.Optional;

/**
 * What one engine renders for a container (reference: docs/reference/kvcache-contract.md). The shared mutation
 * ({@link KvCacheMutation}) applies it: args appended, env in place, toggles, the volume and mount for the
 * file vehicle, the annotations.
 *
 * @param vehicle        file or environment
 * @param args           rendered args, appended in this order
 * @param defaultedFlags flags appended last, each only when no token of the original command line reads as it
 * @param env            rendered env entries, written in place in this order
 * @param clientConfig   the compact JSON of the {@code client-config} annotation (file vehicle only)
 */
public record Rendering(Vehicle vehicle, List<String> args, List<String> defaultedFlags, List<EnvEntry> env,
                        Optional<String> clientConfig) {
    public Rendering {
        args = List.copyOf(args);
        defaultedFlags = List.copyOf(defaultedFlags);
        env = List.copyOf(env);
        if ((vehicle == Vehicle.FILE) != clientConfig.isPresent()) {
            throw new IllegalArgumentException("the file vehicle, and only it, carries a client-config");
        }
    }
}
