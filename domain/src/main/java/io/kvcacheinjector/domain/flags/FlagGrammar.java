package io.kvcacheinjector.domain.flags;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * How one engine's own command-line parser reads a token (reference: docs/reference/flag-grammar.md). Each engine module
 * supplies one; {@link FlagResolver} applies the shared resolution rules (exact, another exact option wins,
 * abbreviation) on top of it.
 */
public interface FlagGrammar {
    /** The engine as messages name it, for example {@code vLLM} or {@code SGLang}. */
    String engineName();

    /**
     * Reduces one argv entry to the name the engine's parser compares with its options (docs/reference/flag-grammar.md), or empty when the
     * entry can never match an option (single dash, bare value, a bare {@code --}).
     */
    Optional<String> name(String token);

    /** Every long option the engine is known to accept (the catalogue in {@code engine-flags/}). */
    Set<String> catalogue();

    /**
     * The other option strings of the same option: one argparse action registered under several names, so a token
     * that reads as any of them sets that option ({@code --enable-hicache} for SGLang's
     * {@code --enable-hierarchical-cache}). {@link FlagResolver#present} counts them; every alias is in the
     * catalogue too, so a prefix the names share is still ambiguous, as argparse finds it. Default: none. Added in
     * engine SPI 1.1.
     */
    default Set<String> aliases(String option) {
        return Set.of();
    }

    /**
     * The supported releases the catalogue was generated from (tools/fidelity/releases.txt), oldest first, as
     * versions ({@code 0.5.11}); messages name them after {@link #engineName()}. Default: none known, and messages
     * then speak of "versions that have" the competing options. Added in engine SPI 1.2.
     */
    default List<String> releases() {
        return List.of();
    }

    /**
     * The supported releases whose parser accepts {@code option}, oldest first: a prefix is unique in a release
     * where no competing option is accepted, and ambiguous where one is. Default: every release of {@link
     * #releases()} for an option of the catalogue, none otherwise. Added in engine SPI 1.2.
     */
    default List<String> releasesOf(String option) {
        return catalogue().contains(option) ? releases() : List.of();
    }
}
