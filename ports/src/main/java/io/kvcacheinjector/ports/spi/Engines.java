package io.kvcacheinjector.ports.spi;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The loaded engines by id. Built once at start-up; a duplicate or missing engine stops it with a clear error. */
public final class Engines {
    /** The engine ids this build must have. */
    public static final List<String> REQUIRED = List.of("vllm", "vllm-ascend", "sglang");

    private final Map<String, EngineInjector> byId;

    private Engines(Map<String, EngineInjector> byId) {
        this.byId = byId;
    }

    /**
     * Indexes {@code engines} by id.
     *
     * @throws IllegalStateException when two engines share an id, or a required engine is missing
     */
    public static Engines of(Collection<? extends EngineInjector> engines) {
        return of(engines, REQUIRED);
    }

    /**
     * Indexes {@code engines} by id, requiring only {@code required} (a test of one engine module loads that engine
     * alone).
     *
     * @throws IllegalStateException when two engines share an id, or a required engine is missing
     */
    public static Engines of(Collection<? extends EngineInjector> engines, Collection<String> required) {
        Map<String, EngineInjector> m = new LinkedHashMap<>();
        for (EngineInjector e : engines) {
            EngineInjector previous = m.putIfAbsent(e.id(), e);
            if (previous != null) {
                throw new IllegalStateException("two engines declare the id \"" + e.id() + "\": "
                        + previous.getClass().getName() + " and " + e.getClass().getName()
                        + "; remove one of the jars from the classpath");
            }
        }
        for (String id : required) {
            if (!m.containsKey(id)) {
                throw new IllegalStateException("no engine with id \"" + id + "\" was found on the classpath (found: "
                        + m.keySet() + "); the engines-* jars must each register one "
                        + EngineInjector.class.getName() + " in META-INF/services");
            }
        }
        return new Engines(Map.copyOf(m));
    }

    /** The engine with that id. */
    public Optional<EngineInjector> byId(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** The engine with that id, which {@link #of} guaranteed for every {@link #REQUIRED} id. */
    public EngineInjector get(String id) {
        EngineInjector e = byId.get(id);
        if (e == null) {
            throw new IllegalArgumentException("unknown engine " + id);
        }
        return e;
    }

    public Collection<EngineInjector> all() {
        return byId.values();
    }
}
