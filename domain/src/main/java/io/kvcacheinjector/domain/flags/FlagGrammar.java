package io.kvcacheinjector.domain.flags;

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
}
