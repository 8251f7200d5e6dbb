package io.kvcacheinjector.domain.flags;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the argv entries an engine reads as watched flags, in every spelling its parser accepts (decision D2,
 * reference: docs/reference/flag-grammar.md). The engine-specific reduction of an entry to a name is the
 * {@link FlagGrammar}; the rules applied to that name are the same for every engine:
 * <ol>
 *   <li><b>exact</b>: the name equals the watched flag;</li>
 *   <li><b>another exact option wins</b>: the name equals another catalogue option, so it is that option;</li>
 *   <li><b>abbreviation</b>: the name is a proper prefix of the watched flag. It is <i>unique</i> when no other
 *       catalogue option starts with it and <i>ambiguous</i> otherwise, but it counts either way: the engine
 *       reads it as the flag or stops at start-up, and neither runs the container as configured.</li>
 * </ol>
 */
public final class FlagResolver {

    /** The token that makes vLLM and SGLang load a YAML file of options (decision D4). */
    public static final String CONFIG_FLAG = "--config";

    private FlagResolver() {
    }

    /**
     * Every (entry, watched flag) pair the engine reads as that flag, in argv order ({@code command} entries first,
     * then {@code args}), and for one entry in the order of {@code watchedFlags}. Every entry is tested, value tokens
     * and tokens after a bare {@code --} included (docs/reference/flag-grammar.md, scope).
     */
    public static List<FlagHit> find(FlagGrammar grammar, List<String> command, List<String> args,
                                     Collection<String> watchedFlags) {
        Set<String> watched = new LinkedHashSet<>(watchedFlags);
        Set<String> catalogue = grammar.catalogue();
        List<FlagHit> hits = new ArrayList<>();
        int index = 0;
        for (String entry : command) {
            collect(grammar, catalogue, entry, index++, true, watched, hits);
        }
        for (String entry : args) {
            collect(grammar, catalogue, entry, index++, false, watched, hits);
        }
        return List.copyOf(hits);
    }

    /**
     * Whether any entry of {@code argv} reads as {@code flag} or as one of its {@linkplain FlagGrammar#aliases
     * aliases} (any spelling of D2): the option is then set, whichever of its names the entry spells.
     */
    public static boolean present(FlagGrammar grammar, List<String> argv, String flag) {
        Set<String> catalogue = grammar.catalogue();
        Set<String> names = new LinkedHashSet<>();
        names.add(flag);
        names.addAll(grammar.aliases(flag));
        for (String entry : argv) {
            Optional<String> name = nameOf(grammar, entry);
            if (name.isPresent() && names.stream().anyMatch(n -> reading(catalogue, name.get(), n).isPresent())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Decision D4: the operand after each exact token {@code --config}, in argv order. A trailing {@code --config}
     * with no operand yields {@code ""}. {@code --config=x} and abbreviations such as {@code --conf} load nothing on
     * either engine and are not listed.
     */
    public static List<String> configFiles(List<String> argv) {
        List<String> files = new ArrayList<>();
        for (int i = 0; i < argv.size(); i++) {
            if (CONFIG_FLAG.equals(argv.get(i))) {
                String operand = i + 1 < argv.size() ? argv.get(i + 1) : "";
                files.add(operand == null ? "" : operand);
            }
        }
        return List.copyOf(files);
    }

    private static void collect(FlagGrammar grammar, Set<String> catalogue, String entry, int index,
                                boolean inCommand, Set<String> watched, List<FlagHit> hits) {
        Optional<String> name = nameOf(grammar, entry);
        if (name.isEmpty()) {
            return;
        }
        String written = writtenPart(entry);
        for (String flag : watched) {
            reading(catalogue, name.get(), flag).ifPresent(reading -> hits.add(new FlagHit(
                    index, inCommand, written, flag,
                    reading.kind() == FlagReadingKind.EXACT && !written.equals(flag)
                            ? FlagReadingKind.NORMALISED : reading.kind(),
                    reading.competitors())));
        }
    }

    /** The grammar's name for an entry, or empty when it can never match an option (also for a null entry). */
    private static Optional<String> nameOf(FlagGrammar grammar, String entry) {
        if (entry == null) {
            return Optional.empty();
        }
        // The grammar contract already excludes these; the resolver re-checks so no grammar can make a bare "--"
        // or a single-dash token abbreviate every option.
        return grammar.name(entry).filter(name -> name.startsWith("--") && name.length() > 2);
    }

    /** The resolution rule for one name and one watched flag: exact, another exact option wins, abbreviation. */
    private static Optional<Reading> reading(Set<String> catalogue, String name, String flag) {
        if (name.equals(flag)) {
            return Optional.of(new Reading(FlagReadingKind.EXACT, List.of()));
        }
        if (catalogue.contains(name) || !flag.startsWith(name)) {
            return Optional.empty();
        }
        List<String> competitors = catalogue.stream()
                .filter(option -> option.startsWith(name) && !option.equals(flag))
                .sorted()
                .toList();
        return Optional.of(competitors.isEmpty()
                ? new Reading(FlagReadingKind.UNIQUE_ABBREVIATION, List.of())
                : new Reading(FlagReadingKind.AMBIGUOUS_ABBREVIATION, competitors));
    }

    private static String writtenPart(String entry) {
        int eq = entry.indexOf('=');
        return eq < 0 ? entry : entry.substring(0, eq);
    }

    private record Reading(FlagReadingKind kind, List<String> competitors) {
    }
}
