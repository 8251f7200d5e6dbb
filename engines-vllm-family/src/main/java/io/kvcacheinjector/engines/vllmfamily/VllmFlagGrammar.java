package io.kvcacheinjector.engines.vllmfamily;

import io.kvcacheinjector.domain.flags.FlagCatalogue;
import io.kvcacheinjector.domain.flags.FlagGrammar;
import java.util.Optional;
import java.util.Set;

/**
 * How vLLM's {@code FlexibleArgumentParser} reads a token (reference: docs/reference/flag-grammar.md). vLLM-Ascend uses vLLM's parser unchanged and reuses this grammar.
 *
 * <p>A token reduces to a name as follows: it must start with {@code --}; it is cut at its first {@code =}; in what
 * remains, {@code _} becomes {@code -} after the leading {@code --} up to the first {@code .}, and the name is cut at
 * that {@code .} (so a dotted member {@code --kv-transfer-config.kv_role} counts as {@code --kv-transfer-config});
 * a name that is then exactly {@code --} matches nothing. Case is never folded.
 *
 * <p>The catalogue is {@code vllm-flags.txt} next to this class, a copy of the shared
 * {@code engine-flags/vllm.txt} plus the additions its last section explains.
 */
public final class VllmFlagGrammar implements FlagGrammar {

    private static final Set<String> CATALOGUE = FlagCatalogue.load(VllmFlagGrammar.class, "vllm-flags.txt");

    public static final VllmFlagGrammar INSTANCE = new VllmFlagGrammar();

    private VllmFlagGrammar() {
    }

    @Override
    public String engineName() {
        return "vLLM";
    }

    @Override
    public Optional<String> name(String token) {
        if (token == null || !token.startsWith("--")) {
            return Optional.empty();
        }
        int equals = token.indexOf('=');
        String flagPart = equals < 0 ? token : token.substring(0, equals);
        int dot = flagPart.indexOf('.', 2);
        String stem = dot < 0 ? flagPart.substring(2) : flagPart.substring(2, dot);
        if (stem.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("--" + stem.replace('_', '-'));
    }

    @Override
    public Set<String> catalogue() {
        return CATALOGUE;
    }

    @Override
    public String toString() {
        return "VllmFlagGrammar[" + CATALOGUE.size() + " options]";
    }
}
