package io.kvcacheinjector.domain.flags;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads an engine's catalogue of long options (reference: engine-flags/*.txt): one option per line; blank lines
 * and lines starting with {@code #} are skipped. A catalogue is part of the program, so a missing resource or a
 * line that is not a long option is a packaging error and fails loudly, at class initialisation of the grammar.
 */
public final class FlagCatalogue {

    private FlagCatalogue() {
    }

    /** Parses catalogue lines. */
    public static Set<String> parse(List<String> lines) {
        Set<String> options = new LinkedHashSet<>();
        int number = 0;
        for (String raw : lines) {
            number++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (!line.startsWith("--") || line.length() < 3 || line.chars().anyMatch(Character::isWhitespace)
                    || line.indexOf('=') >= 0) {
                throw new IllegalArgumentException("flag catalogue line " + number + " is not a long option: " + line);
            }
            options.add(line);
        }
        if (options.isEmpty()) {
            throw new IllegalArgumentException("flag catalogue lists no options");
        }
        return Set.copyOf(options);
    }

    /** Reads a catalogue resource next to {@code anchor} (a name relative to its package, or absolute with /). */
    public static Set<String> load(Class<?> anchor, String resource) {
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("flag catalogue " + resource + " is missing next to " + anchor.getName());
            }
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                return parse(reader.lines().toList());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read flag catalogue " + resource, e);
        }
    }
}
