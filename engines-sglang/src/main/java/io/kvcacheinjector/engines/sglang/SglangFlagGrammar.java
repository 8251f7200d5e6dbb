package io.kvcacheinjector.engines.sglang;

import io.kvcacheinjector.domain.flags.FlagCatalogue;
import io.kvcacheinjector.domain.flags.FlagGrammar;
import java.util.Optional;
import java.util.Set;

/**
 * How SGLang's plain {@code argparse} parser reads a token (reference: docs/reference/flag-grammar.md). SGLang rewrites nothing: a token must start with {@code --} and is cut at its first {@code =}; underscores
 * stay ({@code --kv_cache_dtype} is unknown to SGLang), there is no dotted syntax, and case is never folded. A name
 * that is exactly {@code --} matches nothing.
 *
 * <p>The catalogue is {@code sglang-flags.txt} next to this class, a copy of the shared {@code engine-flags/sglang.txt}.
 */
public final class SglangFlagGrammar implements FlagGrammar {

    private static final Set<String> CATALOGUE = FlagCatalogue.load(SglangFlagGrammar.class, "sglang-flags.txt");

    public static final SglangFlagGrammar INSTANCE = new SglangFlagGrammar();

    /** The alias of {@code --enable-hierarchical-cache} that SGLang 0.5.23 added. */
    public static final String HICACHE = "--enable-hicache";

    private SglangFlagGrammar() {
    }

    @Override
    public String engineName() {
        return "SGLang";
    }

    @Override
    public Optional<String> name(String token) {
        if (token == null || !token.startsWith("--")) {
            return Optional.empty();
        }
        int equals = token.indexOf('=');
        String name = equals < 0 ? token : token.substring(0, equals);
        return name.length() > 2 ? Optional.of(name) : Optional.empty();
    }

    @Override
    public Set<String> catalogue() {
        return CATALOGUE;
    }

    /**
     * SGLang 0.5.23 registers {@code --enable-hierarchical-cache} with the alias {@code --enable-hicache} (one
     * argparse action): either name, or a unique abbreviation of either, turns the host tier on.
     */
    @Override
    public Set<String> aliases(String option) {
        return switch (option) {
            case SglangEngine.HIERARCHICAL_CACHE -> Set.of(HICACHE);
            case HICACHE -> Set.of(SglangEngine.HIERARCHICAL_CACHE);
            default -> Set.of();
        };
    }

    @Override
    public String toString() {
        return "SglangFlagGrammar[" + CATALOGUE.size() + " options]";
    }
}
