package io.kvcacheinjector.domain.cacheblend.engine;

import java.util.List;
import java.util.Map;

/**
 * The desired state of one {@code CacheBlendEngine}: defaults, validation, then the children in apply order
 * (docs/reference/cacheblend-engine.md). The controller and {@code render-engine} both use it, so what the offline
 * command prints is what the controller applies.
 */
public final class EngineRendering {
    private EngineRendering() {
    }

    /** What an engine renders to. */
    public sealed interface Outcome permits Rendered, Invalid {
    }

    /** A valid engine and its children, in apply order. */
    public record Rendered(EngineIdentity engine, EngineSpec spec, List<Map<String, Object>> children)
            implements Outcome {
        public Rendered {
            children = List.copyOf(children);
        }
    }

    /** An invalid engine: no children; {@code message} names the engine, every problem and the fix. */
    public record Invalid(EngineIdentity engine, String message) implements Outcome {
    }

    /** Renders {@code engine} (a whole {@code CacheBlendEngine} object as plain JSON values). */
    public static Outcome render(Map<String, Object> engine, String defaultNamespace, RenderContext context) {
        EngineIdentity id = EngineIdentity.of(engine, defaultNamespace);
        if (id.name().isEmpty()) {
            return new Invalid(id, "the CacheBlendEngine has no metadata.name; give it one (for example"
                    + " tensormesh-cacheblend)");
        }
        return switch (EngineSpecReader.read(engine.get("spec"))) {
            case EngineSpecReader.Valid v -> new Rendered(id, v.spec(), EngineChildren.render(id, v.spec(), context));
            case EngineSpecReader.Invalid i -> new Invalid(id, message(id, i.problems()));
        };
    }

    /** The message of an invalid engine: its name, every problem, and what happens until it is fixed. */
    public static String message(EngineIdentity id, List<String> problems) {
        return id.display() + " is invalid: " + String.join("; ", problems) + ". Fix the spec and apply it again;"
                + " until then nothing is created for it and Pods that reference it are skipped (connection-missing)";
    }
}
