package io.kvcacheinjector.domain.launch;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What launch analysis reads: the target container's {@code command} and {@code args} (empty when the field
 * is absent), whether forwarding was declared (the annotation is exactly {@code "true"}; any other value was
 * refused before), the entry point the declared engine needs, and the entry points of every installed engine (a
 * launch of another engine is a mismatch, not an unrecognised program).
 *
 * @param known the installed engines' entry points; {@code declared} is always among them
 */
public record LaunchInput(Optional<List<String>> command, Optional<List<String>> args, boolean forwardingDeclared,
                          EntryPoint declared, List<EntryPoint> known) {
    public LaunchInput {
        command = command.map(List::copyOf);
        args = args.map(List::copyOf);
        if (known.stream().noneMatch(declared::sameLaunch)) {
            List<EntryPoint> all = new ArrayList<>(known);
            all.add(declared);
            known = all;
        }
        known = List.copyOf(known);
    }
}
