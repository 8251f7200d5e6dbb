package io.kvcacheinjector.ports.spi;

import io.kvcacheinjector.domain.kvcache.SelectableEngine;
import io.kvcacheinjector.domain.launch.EntryPoint;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The engines this webhook loaded, by id. Built once at start-up; which engines exist is decided by what is
 * installed, never by a list here. {@link #of} stops start-up with one clear line when no engine is installed, an id
 * is not a stable lowercase id, two engines share an id or the annotation values that select them, or two declare
 * the same capability.
 */
public final class Engines {
    private static final Pattern ID = Pattern.compile("[a-z][a-z0-9-]*");

    private final Map<String, EngineInjector> byId;
    private final List<SelectableEngine> selectable;
    private final List<EntryPoint> entryPoints;

    private Engines(Map<String, EngineInjector> byId) {
        this.byId = byId;
        this.selectable = byId.values().stream()
                .map(e -> new SelectableEngine(e.id(), e.displayName(), e.selector())).toList();
        List<EntryPoint> points = new ArrayList<>();
        for (EngineInjector e : byId.values()) {
            if (points.stream().noneMatch(p -> p.sameLaunch(e.entryPoint()))) {
                points.add(e.entryPoint());
            }
        }
        this.entryPoints = List.copyOf(points);
    }

    /** Indexes {@code engines} by id; errors name each engine by its class. */
    public static Engines of(Collection<? extends EngineInjector> engines) {
        return of(engines, e -> e.getClass().getName());
    }

    /**
     * Indexes {@code engines} by id, in the order given.
     *
     * @param origin where an engine came from, as an error names it (its folder and jar)
     * @throws IllegalStateException with one line naming the engines and the fix when the set is not valid
     */
    public static Engines of(Collection<? extends EngineInjector> engines, Function<EngineInjector, String> origin) {
        if (engines.isEmpty()) {
            throw new IllegalStateException("no engine is installed; install at least one engine plugin");
        }
        Map<String, EngineInjector> m = new LinkedHashMap<>();
        Map<EngineCapability, EngineInjector> capable = new LinkedHashMap<>();
        for (EngineInjector e : engines) {
            if (e.id() == null || !ID.matcher(e.id()).matches()) {
                throw new IllegalStateException("engine " + origin.apply(e) + " declares the id \"" + e.id()
                        + "\", which is not a stable lowercase id ([a-z][a-z0-9-]*); correct the plugin's id()");
            }
            EngineInjector previous = m.putIfAbsent(e.id(), e);
            if (previous != null) {
                throw new IllegalStateException("two engines declare the id \"" + e.id() + "\": " + origin.apply(previous)
                        + " and " + origin.apply(e) + "; remove one of them");
            }
            for (EngineInjector other : m.values()) {
                if (other != e && other.selector().sameValues(e.selector())) {
                    throw new IllegalStateException("engines \"" + other.id() + "\" (" + origin.apply(other) + ") and \""
                            + e.id() + "\" (" + origin.apply(e) + ") are both selected by " + e.selector().describe()
                            + ", so a Pod could not say which one it means; remove one of them");
                }
            }
            for (EngineCapability c : e.capabilities()) {
                EngineInjector first = capable.putIfAbsent(c, e);
                if (first != null) {
                    throw new IllegalStateException("engines \"" + first.id() + "\" (" + origin.apply(first) + ") and \""
                            + e.id() + "\" (" + origin.apply(e) + ") both declare the capability " + c
                            + ", which at most one engine may have; remove one of them");
                }
            }
        }
        return new Engines(Collections.unmodifiableMap(m));
    }

    /** The engine with that id. */
    public Optional<EngineInjector> byId(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    /**
     * The engine with that id, which the caller got from this set ({@link #selectable()}).
     *
     * @throws IllegalArgumentException for an id this set does not have
     */
    public EngineInjector get(String id) {
        EngineInjector e = byId.get(id);
        if (e == null) {
            throw new IllegalArgumentException("unknown engine " + id + " (installed: " + byId.keySet() + ")");
        }
        return e;
    }

    /** The one engine with {@code capability}, if one is installed. */
    public Optional<EngineInjector> withCapability(EngineCapability capability) {
        return byId.values().stream().filter(e -> e.capabilities().contains(capability)).findFirst();
    }

    /** Every engine, in the order they were given. */
    public Collection<EngineInjector> all() {
        return byId.values();
    }

    /** The engines as the annotation reader chooses among them. */
    public List<SelectableEngine> selectable() {
        return selectable;
    }

    /** The installed entry points, one per distinct launch, for launch analysis. */
    public List<EntryPoint> entryPoints() {
        return entryPoints;
    }
}
