/**
 * Flag spelling: which argv tokens an engine's parser reads as a given flag, in any spelling (decision D2,
 * reference: docs/reference/flag-grammar.md). Each engine module supplies a {@link io.kvcacheinjector.domain.flags.FlagGrammar}
 * (how its parser reduces a token to a name, and its catalogue of options); {@link
 * io.kvcacheinjector.domain.flags.FlagResolver} applies the shared rules (exact, another exact option wins,
 * abbreviation) and reports each match as a {@link io.kvcacheinjector.domain.flags.FlagHit} that can describe itself
 * for a refusal message. {@code FlagResolver.configFiles} finds the {@code --config} files of decision D4.
 */
package io.kvcacheinjector.domain.flags;
