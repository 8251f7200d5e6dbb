package io.kvcacheinjector.domain.flags;

/**
 * How an engine reads one argv entry as a watched flag (reference: docs/reference/flag-grammar.md).
 */
public enum FlagReadingKind {
    /** The entry, up to its first {@code =}, is the flag exactly as the catalogue spells it. */
    EXACT,
    /** The engine rewrites the entry into the flag: underscores (vLLM family) or a dotted member. */
    NORMALISED,
    /** The name is a proper prefix of the flag and of no other catalogue option: the engine reads it as the flag. */
    UNIQUE_ABBREVIATION,
    /**
     * The name is a proper prefix of the flag and of other catalogue options: the engine stops at start-up in
     * versions that have those options, and reads it as the flag in versions that don't.
     */
    AMBIGUOUS_ABBREVIATION
}
