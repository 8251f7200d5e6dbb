package io.kvcacheinjector.domain.flags;

import static io.kvcacheinjector.domain.text.MessageText.quote;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One argv entry that the engine reads as a watched flag (reference: docs/reference/flag-grammar.md).
 *
 * @param argvIndex   the entry's position in argv, which is {@code command} followed by {@code args} as one list
 *                    (so an entry of {@code args} has index {@code command.size() + i})
 * @param inCommand   whether the entry sits in {@code command} (otherwise in {@code args})
 * @param written     the entry as written, up to its first {@code =} (never the value, which may be long JSON)
 * @param flag        the canonical watched flag the engine reads it as, for example {@code --kv-transfer-config}
 * @param kind        how the engine reads it as {@code flag}
 * @param competitors for {@link FlagReadingKind#AMBIGUOUS_ABBREVIATION}, the other catalogue options the name is a
 *                    prefix of, sorted; empty for every other kind
 */
public record FlagHit(int argvIndex, boolean inCommand, String written, String flag, FlagReadingKind kind,
                      List<String> competitors) {

    public FlagHit {
        if (argvIndex < 0) {
            throw new IllegalArgumentException("argvIndex must not be negative: " + argvIndex);
        }
        Objects.requireNonNull(written, "written");
        Objects.requireNonNull(flag, "flag");
        Objects.requireNonNull(kind, "kind");
        competitors = List.copyOf(competitors);
        if ((kind == FlagReadingKind.AMBIGUOUS_ABBREVIATION) == competitors.isEmpty()) {
            throw new IllegalArgumentException(
                    "an ambiguous abbreviation needs competitors, and only an ambiguous abbreviation has them");
        }
    }

    /** {@code command} or {@code args}: the field of the container the entry sits in. */
    public String field() {
        return inCommand ? "command" : "args";
    }

    /** Whether the entry is a vLLM dotted member ({@code --kv-transfer-config.kv_role=…}). */
    public boolean dotted() {
        return kind != FlagReadingKind.EXACT && written.indexOf('.') >= 0;
    }

    /**
     * The entry as a message names it: the token as written (double-quoted, control characters escaped), where it
     * sits, and, unless it is the flag exactly, which flag the engine reads it as and how. Examples:
     * <ul>
     *   <li>{@code "--kv-transfer-config" in command}</li>
     *   <li>{@code "--kv_transfer_config" in args, which vLLM reads as --kv-transfer-config}</li>
     *   <li>{@code "--kv-transfer-config.kv_role" in args, which vLLM reads as --kv-transfer-config (a dotted
     *       member)}</li>
     *   <li>{@code "--kv-t" in args, which vLLM reads as --kv-transfer-config (a unique abbreviation)}</li>
     *   <li>{@code "--kv-o" in args, an ambiguous abbreviation of --kv-offloading-size that also matches
     *       --kv-offloading-backend; vLLM stops at start-up in versions that have that option and reads it as
     *       --kv-offloading-size in versions that don't}</li>
     * </ul>
     *
     * @param engineName the engine as messages name it: {@code vLLM}, {@code vLLM-Ascend}, {@code SGLang}
     */
    public String describe(String engineName) {
        StringBuilder out = new StringBuilder();
        out.append(quote(written)).append(" in ").append(field());
        switch (kind) {
            case EXACT -> {
                // The token is the flag itself: nothing to add.
            }
            case NORMALISED -> {
                out.append(", which ").append(engineName).append(" reads as ").append(flag);
                if (dotted()) {
                    out.append(" (a dotted member)");
                }
            }
            case UNIQUE_ABBREVIATION -> {
                out.append(", which ").append(engineName).append(" reads as ").append(flag)
                        .append(dotted() ? " (a unique abbreviation, as a dotted member)" : " (a unique abbreviation)");
            }
            case AMBIGUOUS_ABBREVIATION -> {
                out.append(", an ambiguous abbreviation of ").append(flag);
                if (dotted()) {
                    out.append(" (as a dotted member)");
                }
                out.append(" that also matches ").append(joined(competitors)).append("; ")
                        .append(engineName).append(" stops at start-up in versions that have ")
                        .append(competitors.size() == 1 ? "that option" : "those options")
                        .append(" and reads it as ").append(flag).append(" in versions that don't");
            }
        }
        return out.toString();
    }

    /**
     * {@link #describe(String)} with the grammar's engine name and, for an ambiguous abbreviation, the supported
     * releases it is ambiguous in: a prefix unique in some supported releases and ambiguous in others is named as
     * such, with those releases. Example: {@code "--kv-c" in args, an ambiguous abbreviation of --kv-cache-dtype that
     * also matches --kv-canary, --kv-canary-real-data and --kv-canary-sweep-interval; it is unique in SGLang 0.5.11,
     * which reads it as --kv-cache-dtype, and ambiguous in SGLang 0.5.15 and 0.5.23, which have those options and
     * stop at start-up}. A grammar that knows no releases gives {@link #describe(String)}.
     */
    public String describe(FlagGrammar grammar) {
        String engine = grammar.engineName();
        if (kind != FlagReadingKind.AMBIGUOUS_ABBREVIATION || grammar.releases().isEmpty()) {
            return describe(engine);
        }
        List<String> unique = new ArrayList<>();
        List<String> ambiguous = new ArrayList<>();
        for (String release : grammar.releasesOf(flag)) {
            boolean competes = competitors.stream().anyMatch(c -> grammar.releasesOf(c).contains(release));
            (competes ? ambiguous : unique).add(release);
        }
        if (ambiguous.isEmpty()) {
            return describe(engine);   // the competitors come from releases without the flag: argparse's own call
        }
        StringBuilder out = new StringBuilder();
        out.append(quote(written)).append(" in ").append(field())
                .append(", an ambiguous abbreviation of ").append(flag);
        if (dotted()) {
            out.append(" (as a dotted member)");
        }
        out.append(" that also matches ").append(joined(competitors)).append("; ");
        String those = competitors.size() == 1 ? "that option" : "those options";
        if (unique.isEmpty()) {
            out.append(engine).append(" stops at start-up in every supported release")
                    .append(ambiguous.size() == grammar.releases().size() ? "" : " that has " + flag).append(" (")
                    .append(joined(ambiguous)).append(") and reads it as ").append(flag)
                    .append(" only in versions without ").append(those);
        } else {
            out.append("it is unique in ").append(engine).append(' ').append(joined(unique))
                    .append(unique.size() == 1 ? ", which reads it as " : ", which read it as ").append(flag)
                    .append(", and ambiguous in ").append(engine).append(' ').append(joined(ambiguous))
                    .append(ambiguous.size() == 1 ? ", which has " : ", which have ").append(those)
                    .append(ambiguous.size() == 1 ? " and stops at start-up" : " and stop at start-up");
        }
        return out.toString();
    }

    private static String joined(List<String> names) {
        if (names.size() == 1) {
            return names.get(0);
        }
        return String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.get(names.size() - 1);
    }
}
