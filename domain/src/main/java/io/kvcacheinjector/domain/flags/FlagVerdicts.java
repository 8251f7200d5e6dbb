package io.kvcacheinjector.domain.flags;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The webhook's own verdict on every spelling of a flag, for the fidelity harness (tools/fidelity, reference:
 * docs/how-to/add-an-engine-release.md), which runs the same spellings through each supported engine release's real
 * parser and compares. A spelling is every prefix of the flag from {@code --x} to the flag itself, each also with
 * {@code _} for {@code -}, each written as {@code name value} and as {@code name=value}; for a vLLM-style grammar that
 * reads dotted members, also {@code name.member=value}.
 */
public final class FlagVerdicts {

    /** The verdict for a token that the resolver does not read as the flag. */
    public static final String NONE = "NONE";

    private FlagVerdicts() {
    }

    /** Every spelling of {@code flag} the harness tries: the written name and how it is followed by its value. */
    public static List<Spelling> spellings(String flag, boolean dotted) {
        Set<Spelling> out = new LinkedHashSet<>();
        for (int end = 3; end <= flag.length(); end++) {
            String prefix = flag.substring(0, end);
            if (prefix.endsWith("-")) {
                continue;
            }
            for (String name : new LinkedHashSet<>(List.of(prefix, "--" + prefix.substring(2).replace('-', '_')))) {
                out.add(new Spelling(name, Form.SEPARATE));
                out.add(new Spelling(name, Form.EQUALS));
                if (dotted) {
                    out.add(new Spelling(name, Form.DOTTED));
                }
            }
        }
        return List.copyOf(out);
    }

    /**
     * One JSON-free, tab-separated verdict line: engine, flag, name, form, kind ({@link FlagReadingKind} name, or
     * {@link #NONE}), competitors (comma-separated), and whether {@link FlagResolver#present} counts it.
     */
    public static String line(FlagGrammar grammar, String engine, String flag, Spelling spelling) {
        String token = spelling.token("VALUE");
        List<String> args = spelling.form() == Form.SEPARATE ? List.of(token, "VALUE") : List.of(token);
        List<FlagHit> hits = FlagResolver.find(grammar, List.of(), args, List.of(flag));
        String kind = hits.isEmpty() ? NONE : hits.get(0).kind().name();
        String competitors = hits.isEmpty() ? "" : String.join(",", hits.get(0).competitors());
        boolean present = FlagResolver.present(grammar, List.of(token), flag);
        return String.join("\t", engine, flag, spelling.name(), spelling.form().name(), kind, competitors,
                Boolean.toString(present));
    }

    /** Every verdict line for the given flags. */
    public static List<String> lines(FlagGrammar grammar, String engine, List<String> flags, boolean dotted) {
        List<String> out = new ArrayList<>();
        for (String flag : flags) {
            for (Spelling s : spellings(flag, dotted)) {
                out.add(line(grammar, engine, flag, s));
            }
        }
        return out;
    }

    /** How the value follows the name. */
    public enum Form { SEPARATE, EQUALS, DOTTED }

    /** A written name and its form. */
    public record Spelling(String name, Form form) {
        /** The argv entry: the name, {@code name=value}, or {@code name.member=value}. */
        public String token(String value) {
            return switch (form) {
                case SEPARATE -> name;
                case EQUALS -> name + "=" + value;
                case DOTTED -> name + ".kv_role=" + value;
            };
        }
    }
}
