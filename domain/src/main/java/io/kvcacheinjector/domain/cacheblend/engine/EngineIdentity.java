package io.kvcacheinjector.domain.cacheblend.engine;

import java.util.Map;
import java.util.Optional;

/**
 * Which {@code CacheBlendEngine} the children belong to.
 *
 * @param namespace  the engine's namespace (its children live there)
 * @param name       the engine's name
 * @param uid        {@code metadata.uid}; without it (an engine read from a file) no owner reference is written
 * @param generation {@code metadata.generation}, 0 when unknown
 */
public record EngineIdentity(String namespace, String name, Optional<String> uid, long generation) {
    public static final String API_VERSION = "lmcache.lmcache.ai/v1alpha1";
    public static final String KIND = "CacheBlendEngine";

    /** The identity in an engine object's {@code metadata} ({@code defaultNamespace} when it has none). */
    public static EngineIdentity of(Map<String, Object> engine, String defaultNamespace) {
        Object meta = engine.get("metadata");
        Map<?, ?> m = meta instanceof Map<?, ?> mm ? mm : Map.of();
        String ns = m.get("namespace") instanceof String s && !s.isEmpty() ? s : defaultNamespace;
        String name = m.get("name") instanceof String s ? s : "";
        Optional<String> uid = m.get("uid") instanceof String s && !s.isEmpty() ? Optional.of(s) : Optional.empty();
        long generation = m.get("generation") instanceof Number n ? n.longValue() : 0;
        return new EngineIdentity(ns, name, uid, generation);
    }

    /** {@code CacheBlendEngine <namespace>/<name>}, as messages name it. */
    public String display() {
        return KIND + " " + namespace + "/" + name;
    }
}
