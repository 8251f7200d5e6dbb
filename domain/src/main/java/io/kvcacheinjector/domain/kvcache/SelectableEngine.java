package io.kvcacheinjector.domain.kvcache;

import java.util.Objects;

/**
 * An installed engine as the annotation reader sees it: its id (the record's {@code engine}), its display name and
 * the values that select it. The engine plugins provide these; the core names no engine.
 */
public record SelectableEngine(String id, String displayName, EngineSelector selector) {
    public SelectableEngine {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(displayName, "displayName");
        Objects.requireNonNull(selector, "selector");
    }
}
