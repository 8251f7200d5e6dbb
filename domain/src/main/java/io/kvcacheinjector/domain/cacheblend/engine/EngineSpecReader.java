package io.kvcacheinjector.domain.cacheblend.engine;

import io.kvcacheinjector.domain.json.Json;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a {@code CacheBlendEngine}'s {@code spec} (plain JSON values), applies the defaults and validates it
 * (docs/reference/cacheblend-engine.md). Every problem is collected, so one answer lists all of them; each names the
 * field as written, what it holds and what is allowed.
 */
public final class EngineSpecReader {
    private static final Set<String> VENDORS = Set.of("nvidia", "amd");
    private static final Set<String> PULL_POLICIES = Set.of("Always", "Never", "IfNotPresent");
    private static final Set<String> HASHES = Set.of("builtin", "sha256_cbor", "blake3");
    private static final Set<String> LOG_LEVELS = Set.of("DEBUG", "INFO", "WARNING", "ERROR");
    private static final Set<String> CUDAGRAPH = Set.of("eager", "piecewise", "full_decode_only");

    private final List<String> problems = new ArrayList<>();

    private EngineSpecReader() {
    }

    /** The outcome of reading a spec. */
    public sealed interface Reading permits Valid, Invalid {
    }

    /** A valid spec, defaults applied. */
    public record Valid(EngineSpec spec) implements Reading {
    }

    /** An invalid spec: every problem, each one sentence naming the field and what is allowed. */
    public record Invalid(List<String> problems) implements Reading {
        public Invalid {
            problems = List.copyOf(problems);
        }
    }

    /** Reads {@code spec} (absent or not an object: every required field is reported missing). */
    public static Reading read(Object spec) {
        EngineSpecReader r = new EngineSpecReader();
        EngineSpec s = r.spec(spec instanceof Map<?, ?> ? obj(spec) : Map.of());
        return r.problems.isEmpty() ? new Valid(s) : new Invalid(r.problems);
    }

    private EngineSpec spec(Map<String, Object> spec) {
        String vendor = oneOf(spec, "gpuVendor", "spec.gpuVendor", VENDORS, "nvidia");
        EngineSpec.Image image = image(spec.get("image"), "spec.image", "lmcache/vllm-openai");
        List<String> secrets = secretNames(spec.get("imagePullSecrets"), "spec.imagePullSecrets");

        Map<String, Object> server = object(spec, "server", "spec.server");
        int port = integer(server, "port", "spec.server.port", 5555, 1024, 65535);
        Optional<Long> chunk = optionalInteger(server, "chunkSize", "spec.server.chunkSize");
        chunk.filter(c -> c != EngineSpec.CHUNK_SIZE).ifPresent(c -> problems.add("spec.server.chunkSize is " + c
                + " but must be " + EngineSpec.CHUNK_SIZE + " (vLLM --block-size 64 x 4); remove it or set 256"));
        int maxWorkers = integer(server, "maxWorkers", "spec.server.maxWorkers", 1, 1, Integer.MAX_VALUE);
        String hash = oneOf(server, "hashAlgorithm", "spec.server.hashAlgorithm", HASHES, "blake3");

        Map<String, Object> l1 = object(spec, "l1", "spec.l1");
        double sizeGb = 0;
        if (!l1.containsKey("sizeGB") || l1.get("sizeGB") == null) {
            problems.add("spec.l1.sizeGB is missing; it is required: the host memory for the L1 cache in GiB,"
                    + " a number > 0 (for example 60)");
        } else if (!(l1.get("sizeGB") instanceof Number n) || !(n.doubleValue() > 0) || Double.isInfinite(n.doubleValue())) {
            problems.add("spec.l1.sizeGB is " + shown(l1.get("sizeGB")) + " but must be a number > 0 (for example 60)");
        } else {
            sizeGb = n.doubleValue();
        }

        Map<String, Object> eviction = object(spec, "eviction", "spec.eviction");
        String policy = oneOf(eviction, "policy", "spec.eviction.policy", Set.of("LRU"), "LRU");
        double watermark = fraction(eviction, "triggerWatermark", "spec.eviction.triggerWatermark", 0.8);
        double ratio = fraction(eviction, "evictionRatio", "spec.eviction.evictionRatio", 0.2);

        Map<String, Object> prom = object(spec, "prometheus", "spec.prometheus");
        boolean promEnabled = bool(prom, "enabled", "spec.prometheus.enabled", true);
        int promPort = integer(prom, "port", "spec.prometheus.port", 9090, 1, 65535);
        Map<String, Object> sm = object(prom, "serviceMonitor", "spec.prometheus.serviceMonitor");
        boolean smEnabled = bool(sm, "enabled", "spec.prometheus.serviceMonitor.enabled", false);
        String interval = string(sm, "interval", "spec.prometheus.serviceMonitor.interval").orElse("30s");
        Map<String, String> smLabels = stringMap(sm.get("labels"), "spec.prometheus.serviceMonitor.labels");
        if (promPort == port) {
            problems.add("spec.prometheus.port and spec.server.port are both " + port + "; give them different ports");
        }

        Optional<EngineSpec.L2Backend> l2 = l2(spec.get("l2Backend"));
        Optional<EngineSpec.Coordinator> coordinator = coordinator(spec.get("coordinator"));

        Map<String, Object> blend = object(spec, "blend", "spec.blend");
        int checkLayer = integer(blend, "checkLayer", "spec.blend.checkLayer", 1, 0, Integer.MAX_VALUE);
        double recomp = fraction(blend, "recompRatio", "spec.blend.recompRatio", 0.15);

        Map<String, Object> injection = object(spec, "injection", "spec.injection");
        Object payload = injection.get("payloadImage");
        Map<String, Object> payloadMap = payload == null ? Map.of() : asObject(payload, "spec.injection.payloadImage");
        if (string(payloadMap, "repository", "spec.injection.payloadImage.repository").filter(r -> !r.isBlank())
                .isEmpty()) {
            problems.add("spec.injection.payloadImage.repository is missing or empty; set it to the cacheblend-plugin"
                    + " image (for example tensormesh/cacheblend-plugin) from the same lmcache build as the engine");
        } else {
            image(payload, "spec.injection.payloadImage", "");
        }
        secretNames(injection.get("imagePullSecrets"), "spec.injection.imagePullSecrets");
        string(injection, "targetContainer", "spec.injection.targetContainer");
        oneOf(injection, "cudagraph", "spec.injection.cudagraph", CUDAGRAPH, "eager");

        boolean privileged = bool(spec, "privileged", "spec.privileged", false);
        Optional<Boolean> hostIpc = spec.get("hostIPC") == null ? Optional.empty()
                : Optional.of(bool(spec, "hostIPC", "spec.hostIPC", true));
        boolean pd = spec.get("pd") != null;
        if (pd) {
            object(spec, "pd", "spec.pd");
        }
        String logLevel = oneOf(spec, "logLevel", "spec.logLevel", LOG_LEVELS, "INFO");
        Map<String, String> nodeSelector = spec.get("nodeSelector") == null
                ? ("nvidia".equals(vendor) ? Map.of("nvidia.com/gpu.present", "true") : Map.of())
                : stringMap(spec.get("nodeSelector"), "spec.nodeSelector");

        EngineSpec.PodExtras extras = new EngineSpec.PodExtras(
                object(spec, "resourceOverrides", "spec.resourceOverrides"),
                Optional.ofNullable(spec.get("affinity")).map(a -> {
                    object(spec, "affinity", "spec.affinity");
                    return a;
                }),
                list(spec, "tolerations", "spec.tolerations"),
                list(spec, "env", "spec.env"),
                list(spec, "volumes", "spec.volumes"),
                list(spec, "volumeMounts", "spec.volumeMounts"),
                stringMap(spec.get("podAnnotations"), "spec.podAnnotations"),
                stringMap(spec.get("podLabels"), "spec.podLabels"),
                string(spec, "serviceAccountName", "spec.serviceAccountName").filter(s -> !s.isEmpty()),
                string(spec, "priorityClassName", "spec.priorityClassName").filter(s -> !s.isEmpty()));
        List<String> extraArgs = strings(spec.get("extraArgs"), "spec.extraArgs");

        return new EngineSpec(vendor, image, secrets, port, EngineSpec.CHUNK_SIZE, maxWorkers, hash, sizeGb, policy,
                watermark, ratio, new EngineSpec.Prometheus(promEnabled, promPort, smEnabled, interval, smLabels),
                l2, coordinator, checkLayer, recomp, privileged, hostIpc, pd, logLevel, nodeSelector, extras,
                extraArgs);
    }

    private Optional<EngineSpec.L2Backend> l2(Object value) {
        if (value == null) {
            return Optional.empty();
        }
        if (!(value instanceof Map<?, ?>)) {
            problems.add("spec.l2Backend is " + shown(value) + " but must be an object with resp or raw");
            return Optional.empty();
        }
        Map<String, Object> l2 = obj(value);
        boolean hasResp = l2.get("resp") != null;
        boolean hasRaw = l2.get("raw") != null;
        if (hasResp == hasRaw) {
            problems.add("spec.l2Backend must set exactly one of resp or raw (it sets "
                    + (hasResp ? "both" : "neither") + ")");
            return Optional.empty();
        }
        if (hasRaw) {
            Map<String, Object> raw = object(l2, "raw", "spec.l2Backend.raw");
            List<String> args = strings(raw.get("args"), "spec.l2Backend.raw.args");
            if (args.isEmpty()) {
                problems.add("spec.l2Backend.raw.args is empty; give the engine's L2 arguments, or remove raw");
            }
            return Optional.of(new EngineSpec.L2Backend(Optional.empty(), 0, Optional.empty(), args));
        }
        Map<String, Object> resp = object(l2, "resp", "spec.l2Backend.resp");
        Optional<String> host = string(resp, "host", "spec.l2Backend.resp.host").filter(h -> !h.isBlank());
        if (host.isEmpty()) {
            problems.add("spec.l2Backend.resp.host is missing; set the RESP (Redis protocol) server's host");
        }
        int port = integer(resp, "port", "spec.l2Backend.resp.port", 6379, 1, 65535);
        Optional<EngineSpec.SecretRef> auth = Optional.empty();
        if (resp.get("authSecretRef") != null) {
            Map<String, Object> ref = object(resp, "authSecretRef", "spec.l2Backend.resp.authSecretRef");
            Optional<String> name = string(ref, "name", "spec.l2Backend.resp.authSecretRef.name")
                    .filter(n -> !n.isBlank());
            if (name.isEmpty()) {
                problems.add("spec.l2Backend.resp.authSecretRef.name is missing; name the Secret holding the RESP"
                        + " password (key password)");
            } else {
                auth = Optional.of(new EngineSpec.SecretRef(
                        string(ref, "namespace", "spec.l2Backend.resp.authSecretRef.namespace").orElse(""),
                        name.get()));
            }
        }
        return Optional.of(new EngineSpec.L2Backend(host, port, auth, List.of()));
    }

    private Optional<EngineSpec.Coordinator> coordinator(Object value) {
        if (value == null) {
            return Optional.empty();
        }
        if (!(value instanceof Map<?, ?>)) {
            problems.add("spec.coordinator is " + shown(value) + " but must be an object with ref or url");
            return Optional.empty();
        }
        Map<String, Object> c = obj(value);
        Optional<String> url = string(c, "url", "spec.coordinator.url").filter(u -> !u.isBlank());
        boolean hasRef = c.get("ref") != null;
        if (url.isPresent() == hasRef) {
            problems.add("spec.coordinator must set exactly one of ref or url (it sets "
                    + (hasRef ? "both" : "neither") + ")");
            return Optional.empty();
        }
        if (url.isPresent()) {
            return Optional.of(new EngineSpec.Coordinator(url, "", ""));
        }
        Object ref = c.get("ref");
        Optional<String> name = ref instanceof String s ? Optional.of(s)
                : ref instanceof Map<?, ?> ? string(obj(ref), "name", "spec.coordinator.ref.name") : Optional.empty();
        if (name.filter(n -> !n.isBlank()).isEmpty()) {
            problems.add("spec.coordinator.ref must name an LMCacheCoordinator (ref.name)");
            return Optional.empty();
        }
        Optional<String> ns = ref instanceof Map<?, ?> ? string(obj(ref), "namespace", "spec.coordinator.ref.namespace")
                : Optional.empty();
        return Optional.of(new EngineSpec.Coordinator(Optional.empty(), ns.orElse(""), name.get()));
    }

    private EngineSpec.Image image(Object value, String field, String defaultRepository) {
        Map<String, Object> m = value == null ? Map.of() : asObject(value, field);
        String repo = string(m, "repository", field + ".repository").filter(s -> !s.isBlank()).orElse(defaultRepository);
        String tag = string(m, "tag", field + ".tag").filter(s -> !s.isBlank()).orElse("latest");
        String pull = oneOf(m, "pullPolicy", field + ".pullPolicy", PULL_POLICIES, "IfNotPresent");
        return new EngineSpec.Image(repo, tag, pull);
    }

    private List<String> secretNames(Object value, String field) {
        List<String> names = new ArrayList<>();
        if (value == null) {
            return names;
        }
        if (!(value instanceof List<?> l)) {
            problems.add(field + " is " + shown(value) + " but must be a list of {name: ...}");
            return names;
        }
        for (int i = 0; i < l.size(); i++) {
            Object o = l.get(i);
            Optional<String> n = o instanceof Map<?, ?> m && m.get("name") instanceof String s && !s.isBlank()
                    ? Optional.of(s) : Optional.empty();
            if (n.isEmpty()) {
                problems.add(field + "[" + i + "] is " + shown(o) + " but must be {name: <Secret name>}");
            } else {
                names.add(n.get());
            }
        }
        return names;
    }

    private Map<String, Object> object(Map<String, Object> parent, String key, String field) {
        Object v = parent.get(key);
        return v == null ? Map.of() : asObject(v, field);
    }

    private Map<String, Object> asObject(Object v, String field) {
        if (v instanceof Map<?, ?>) {
            return obj(v);
        }
        problems.add(field + " is " + shown(v) + " but must be an object");
        return Map.of();
    }

    private List<Object> list(Map<String, Object> parent, String key, String field) {
        Object v = parent.get(key);
        if (v == null) {
            return List.of();
        }
        if (v instanceof List<?> l) {
            return List.copyOf(l);
        }
        problems.add(field + " is " + shown(v) + " but must be a list");
        return List.of();
    }

    private List<String> strings(Object v, String field) {
        List<String> out = new ArrayList<>();
        if (v == null) {
            return out;
        }
        if (!(v instanceof List<?> l)) {
            problems.add(field + " is " + shown(v) + " but must be a list of strings");
            return out;
        }
        for (int i = 0; i < l.size(); i++) {
            if (l.get(i) instanceof String s) {
                out.add(s);
            } else {
                problems.add(field + "[" + i + "] is " + shown(l.get(i)) + " but must be a string");
            }
        }
        return out;
    }

    private Map<String, String> stringMap(Object v, String field) {
        Map<String, String> out = new LinkedHashMap<>();
        if (v == null) {
            return out;
        }
        if (!(v instanceof Map<?, ?> m)) {
            problems.add(field + " is " + shown(v) + " but must be a map of strings");
            return out;
        }
        m.forEach((k, val) -> {
            if (val instanceof String s) {
                out.put(String.valueOf(k), s);
            } else {
                problems.add(field + "." + k + " is " + shown(val) + " but must be a string (quote it)");
            }
        });
        return out;
    }

    private Optional<String> string(Map<String, Object> m, String key, String field) {
        Object v = m.get(key);
        if (v == null) {
            return Optional.empty();
        }
        if (v instanceof String s) {
            return Optional.of(s);
        }
        problems.add(field + " is " + shown(v) + " but must be a string");
        return Optional.empty();
    }

    private String oneOf(Map<String, Object> m, String key, String field, Set<String> allowed, String def) {
        Optional<String> s = string(m, key, field);
        if (s.isEmpty() || s.get().isEmpty()) {
            return def;
        }
        if (!allowed.contains(s.get())) {
            problems.add(field + " is " + Json.quote(s.get()) + " but must be one of "
                    + String.join(", ", allowed.stream().sorted().toList()));
            return def;
        }
        return s.get();
    }

    private boolean bool(Map<String, Object> m, String key, String field, boolean def) {
        Object v = m.get(key);
        if (v == null) {
            return def;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        problems.add(field + " is " + shown(v) + " but must be true or false");
        return def;
    }

    private Optional<Long> optionalInteger(Map<String, Object> m, String key, String field) {
        Object v = m.get(key);
        if (v == null) {
            return Optional.empty();
        }
        if (v instanceof Number n && isWhole(n)) {
            return Optional.of(n.longValue());
        }
        problems.add(field + " is " + shown(v) + " but must be a whole number");
        return Optional.empty();
    }

    private int integer(Map<String, Object> m, String key, String field, int def, int min, int max) {
        Optional<Long> v = optionalInteger(m, key, field);
        if (v.isEmpty()) {
            return def;
        }
        if (v.get() < min || v.get() > max) {
            problems.add(field + " is " + v.get() + " but must be " + (max == Integer.MAX_VALUE
                    ? "at least " + min : "between " + min + " and " + max));
            return def;
        }
        return (int) (long) v.get();
    }

    private double fraction(Map<String, Object> m, String key, String field, double def) {
        Object v = m.get(key);
        if (v == null) {
            return def;
        }
        if (v instanceof Number n && n.doubleValue() > 0 && n.doubleValue() <= 1) {
            return n.doubleValue();
        }
        problems.add(field + " is " + shown(v) + " but must be a number in (0, 1]: above 0 and at most 1");
        return def;
    }

    private static boolean isWhole(Number n) {
        if (n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte) {
            return true;
        }
        if (n instanceof BigDecimal b) {
            return b.stripTrailingZeros().scale() <= 0 && b.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) <= 0;
        }
        double d = n.doubleValue();
        return d == Math.rint(d) && Math.abs(d) < 1e15;
    }

    private static String shown(Object v) {
        return v == null ? "null" : Json.write(v instanceof Map<?, ?> || v instanceof List<?> || v instanceof String
                || v instanceof Number || v instanceof Boolean ? v : String.valueOf(v));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> obj(Object o) {
        return (Map<String, Object>) o;
    }
}
