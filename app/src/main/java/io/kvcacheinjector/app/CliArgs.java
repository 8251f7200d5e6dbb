package io.kvcacheinjector.app;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** A small {@code --flag value} / {@code --flag=value} / {@code --switch} parser for the offline commands. */
final class CliArgs {
    private final Map<String, String> values = new LinkedHashMap<>();
    private final List<String> switches = new ArrayList<>();

    private CliArgs() {
    }

    /**
     * Parses {@code args}; {@code valued} are the flags that take a value, {@code switchFlags} those that do not.
     *
     * @throws IllegalArgumentException on an unknown flag or a missing value, with a one-line reason
     */
    static CliArgs parse(String[] args, Set<String> valued, Set<String> switchFlags) {
        CliArgs out = new CliArgs();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String name = a;
            String inline = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                name = a.substring(0, eq);
                inline = a.substring(eq + 1);
            }
            if (valued.contains(name)) {
                if (inline == null) {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(name + " needs a value");
                    }
                    inline = args[++i];
                }
                out.values.put(name, inline);
            } else if (switchFlags.contains(name) && inline == null) {
                out.switches.add(name);
            } else {
                throw new IllegalArgumentException("unknown option " + a);
            }
        }
        return out;
    }

    Optional<String> value(String name) {
        return Optional.ofNullable(values.get(name));
    }

    String required(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException(name + " is required");
        }
        return v;
    }

    boolean has(String name) {
        return switches.contains(name);
    }

    /** A comma-separated list value, trimmed, blanks dropped. */
    Set<String> list(String name) {
        Set<String> out = new java.util.LinkedHashSet<>();
        value(name).ifPresent(v -> {
            for (String s : v.split(",")) {
                if (!s.isBlank()) {
                    out.add(s.trim());
                }
            }
        });
        return out;
    }
}
