package io.kvcacheinjector.domain.launch;

import java.util.List;
import java.util.Optional;

/**
 * What launch analysis reads: the target container's {@code command} and {@code args} (empty when the field
 * is absent), whether forwarding was declared (the annotation is exactly {@code "true"}; any other value was
 * refused before), and the entry point the declared runtime needs.
 */
public record LaunchInput(Optional<List<String>> command, Optional<List<String>> args, boolean forwardingDeclared,
                          EntryPoint declared) {
    public LaunchInput {
        command = command.map(List::copyOf);
        args = args.map(List::copyOf);
    }
}
