/**
 * Flag spelling: which argv tokens an engine's parser reads as a given flag, in any spelling (decision D2).
 * The engine-specific part is a {@link io.kvcacheinjector.domain.flags.FlagGrammar} in each engine module.
 */
package io.kvcacheinjector.domain.flags;
