package io.kvcacheinjector.domain.kvcache;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The annotation values that select one engine (docs/reference/kvcache-contract.md, "Annotations"): the
 * {@code kvcache.gpustack.ai/engine} value and, where an engine is a variant of another under the same engine value,
 * the {@code kvcache.gpustack.ai/manufacturer} value. Both compare case-insensitively; an engine without a
 * manufacturer value is selected only when the annotation is absent.
 *
 * @param engine       the engine value as the plugin spells it ({@code vLLM}), not empty
 * @param manufacturer the manufacturer value ({@code ascend}), empty when the engine is selected without one
 */
public record EngineSelector(String engine, Optional<String> manufacturer) {
    public EngineSelector {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(manufacturer, "manufacturer");
        if (engine.isBlank() || manufacturer.filter(String::isBlank).isPresent()) {
            throw new IllegalArgumentException("an engine selector needs a non-blank engine value and, if any, a non-blank manufacturer value");
        }
    }

    /** Selected by {@code engine} alone. */
    public static EngineSelector engine(String engine) {
        return new EngineSelector(engine, Optional.empty());
    }

    /** Selected by {@code engine} together with {@code manufacturer}. */
    public static EngineSelector engineWithManufacturer(String engine, String manufacturer) {
        return new EngineSelector(engine, Optional.of(manufacturer));
    }

    /** Whether the Pod's values (as written) select this engine. */
    public boolean matches(String engineValue, Optional<String> manufacturerValue) {
        return engine.equalsIgnoreCase(engineValue) && manufacturer.map(m -> m.toLowerCase(Locale.ROOT))
                .equals(manufacturerValue.map(m -> m.toLowerCase(Locale.ROOT)));
    }

    /** Whether two selectors accept the same annotation values (so two engines could not be told apart). */
    public boolean sameValues(EngineSelector other) {
        return matches(other.engine, other.manufacturer);
    }

    /** {@code engine: vLLM} or {@code engine: vLLM with manufacturer: ascend}, for messages and logs. */
    public String describe() {
        return "engine: " + engine + manufacturer.map(m -> " with manufacturer: " + m).orElse("");
    }
}
