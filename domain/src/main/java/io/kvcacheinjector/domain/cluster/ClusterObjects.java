package io.kvcacheinjector.domain.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the cluster objects the webhooks use from a plain JSON tree (a Kubernetes object as a {@code Map}),
 * tolerant of fields it does not know and of missing optional ones. Used by every directory implementation
 * (files, informers) and by test fakes, so that the mapping exists once.
 *
 * <p>Field paths follow docs/reference/kvcache-contract.md and docs/reference/cacheblend-injection.md A field of the wrong JSON type is read as
 * absent: the webhook then refuses with the code of the missing value rather than guessing.
 */
public final class ClusterObjects {
    /** The API group/version of the Binding, pool and backend. */
    public static final String KVCACHE_API_VERSION = "worker.gpustack.ai/v1alpha1";
    /** The API group/version of the CacheBlend engine. */
    public static final String CACHEBLEND_API_VERSION = "lmcache.lmcache.ai/v1alpha1";
    /** The Secret that holds operator-wide settings. */
    public static final String SETTINGS_SECRET = "gpustack-settings";
    /** The data key of the dtype Setting. */
    public static final String DTYPE_SETTING = "model-deployment-kv-cache-dtype-owned";

    private ClusterObjects() {
    }

    /** {@code kind} of an object, or empty. */
    public static Optional<String> kind(Map<String, Object> object) {
        return str(object.get("kind"));
    }

    /** {@code metadata.namespace}, or empty. */
    public static Optional<String> namespace(Map<String, Object> object) {
        return str(map(object.get("metadata")).get("namespace")).filter(s -> !s.isEmpty());
    }

    /** {@code metadata.name}, or empty. */
    public static Optional<String> name(Map<String, Object> object) {
        return str(map(object.get("metadata")).get("name")).filter(s -> !s.isEmpty());
    }

    /** A {@code KVCachePoolBinding}. {@code defaultNamespace} is used when the object carries none. */
    public static KvCachePoolBinding binding(Map<String, Object> object, String defaultNamespace) {
        Map<String, Object> md = map(object.get("metadata"));
        Map<String, Object> spec = map(object.get("spec"));
        Map<String, Object> domain = map(spec.get("domain"));
        return new KvCachePoolBinding(
                shared(namespace(object).orElse(defaultNamespace)),
                name(object).orElse(""),
                str(map(spec.get("poolRef")).get("name")).filter(s -> !s.isEmpty()).map(ClusterObjects::shared),
                str(domain.get("name")).orElse(""),
                shared(str(domain.get("dtype")).orElse("")),
                md.get("deletionTimestamp") != null);
    }

    /** A {@code KVCachePool}. */
    public static KvCachePool pool(Map<String, Object> object) {
        Map<String, Object> spec = map(object.get("spec"));
        Map<String, Object> status = map(object.get("status"));
        List<String> backends = new ArrayList<>();
        for (Object o : list(spec.get("backends"))) {
            if (o instanceof String s) {
                backends.add(shared(s));
            }
        }
        Optional<Condition> ledger = Optional.empty();
        for (Object o : list(status.get("conditions"))) {
            Map<String, Object> c = map(o);
            if ("QuotaLedgerAvailable".equals(c.get("type"))) {
                ledger = Optional.of(new Condition("QuotaLedgerAvailable",
                        shared(str(c.get("status")).orElse("")), shared(str(c.get("reason")).orElse("")),
                        str(c.get("message")).orElse("")));
                break;
            }
        }
        return new KvCachePool(name(object).orElse(""), backends,
                shared(str(status.get("clientEndpoint")).orElse("")), ledger);
    }

    /** A {@code KVCacheBackend}. */
    public static KvCacheBackend backend(Map<String, Object> object) {
        Map<String, Object> spec = map(object.get("spec"));
        Optional<String> protocol = str(map(spec.get("transport")).get("protocol")).filter(s -> !s.isEmpty());
        List<Optional<String>> groups = new ArrayList<>();
        Object managed = map(spec.get("connection")).get("managed");
        if (managed instanceof Map<?, ?>) {
            for (Object m : list(map(managed).get("members"))) {
                groups.add(str(map(map(m).get("transport")).get("protocol")).filter(s -> !s.isEmpty()));
            }
        }
        return new KvCacheBackend(name(object).orElse(""), protocol, groups);
    }

    /** A {@code CacheBlendEngine}, with the upstream defaults applied. */
    public static CacheBlendEngine cacheBlendEngine(Map<String, Object> object, String defaultNamespace) {
        Map<String, Object> spec = map(object.get("spec"));
        Map<String, Object> injection = map(spec.get("injection"));
        Map<String, Object> payload = map(injection.get("payloadImage"));
        List<String> secrets = new ArrayList<>();
        for (Object o : list(injection.get("imagePullSecrets"))) {
            str(map(o).get("name")).filter(s -> !s.isBlank()).ifPresent(secrets::add);
        }
        Object hostIpc = spec.get("hostIPC");
        Object pd = spec.get("pd");
        int port = 5558;
        if (pd instanceof Map<?, ?> pdMap && map(pdMap).get("nixlSideChannelPort") instanceof Number n) {
            port = n.intValue();
        }
        return new CacheBlendEngine(
                namespace(object).orElse(defaultNamespace),
                name(object).orElse(""),
                str(payload.get("repository")).filter(s -> !s.isBlank()),
                str(payload.get("tag")).filter(s -> !s.isEmpty()).orElse("latest"),
                str(payload.get("pullPolicy")).filter(s -> !s.isEmpty()).orElse("IfNotPresent"),
                secrets,
                str(injection.get("targetContainer")).filter(s -> !s.isEmpty()),
                str(injection.get("cudagraph")).filter(s -> !s.isEmpty()).orElse("eager"),
                hostIpc instanceof Boolean b ? Optional.of(b) : Optional.empty(),
                pd instanceof Map<?, ?>,
                port,
                str(map(spec.get("image")).get("tag")).filter(t -> !t.isBlank()));
    }

    /** A Namespace's name and labels. */
    public static NamespaceLabels namespaceLabels(Map<String, Object> object) {
        Map<String, String> labels = new java.util.LinkedHashMap<>();
        Object md = object.get("metadata");
        if (md instanceof Map<?, ?> m && m.get("labels") instanceof Map<?, ?> l) {
            l.forEach((k, v) -> {
                if (k instanceof String ks && v instanceof String vs) {
                    labels.put(ks, vs);
                }
            });
        }
        return new NamespaceLabels(name(object).orElse(""), labels);
    }

    /** A ConfigMap's {@code data} (non-string values are dropped). */
    public static ConfigMapData configMap(Map<String, Object> object, String defaultNamespace) {
        Map<String, String> data = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : map(object.get("data")).entrySet()) {
            if (e.getValue() instanceof String s) {
                data.put(e.getKey(), s);
            }
        }
        return new ConfigMapData(namespace(object).orElse(defaultNamespace), name(object).orElse(""), data);
    }

    /**
     * The dtype Setting from the {@code gpustack-settings} Secret object (D9): {@code data} is base64,
     * {@code stringData} plain. Missing key or unparseable value: the default, on.
     */
    public static boolean dtypeOwned(Map<String, Object> secret) {
        Optional<String> raw = str(map(secret.get("stringData")).get(DTYPE_SETTING));
        if (raw.isEmpty()) {
            raw = str(map(secret.get("data")).get(DTYPE_SETTING)).flatMap(ClusterObjects::base64);
        }
        return raw.flatMap(ClusterObjects::parseSetting).orElse(true);
    }

    /**
     * Parses a boolean Setting the lenient way upstream does: {@code 1 t T true True TRUE} are on,
     * {@code 0 f F false False FALSE} are off, anything else is empty.
     */
    public static Optional<Boolean> parseSetting(String value) {
        return switch (value) {
            case "1", "t", "T", "true", "True", "TRUE" -> Optional.of(Boolean.TRUE);
            case "0", "f", "F", "false", "False", "FALSE" -> Optional.of(Boolean.FALSE);
            default -> Optional.empty();
        };
    }

    private static Optional<String> base64(String s) {
        try {
            return Optional.of(new String(java.util.Base64.getMimeDecoder().decode(s), java.nio.charset.StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * One instance of a value many records repeat — a namespace, the pool a Binding names, a dtype, a backend, a
     * pool's endpoint, a condition's status and reason — so that the cluster view's cache of 10 000 Bindings holds
     * each such string once rather than once per record (docs/explanation/performance-log.md, lever 11). Names and
     * messages, mostly unique, are left as read.
     */
    private static String shared(String s) {
        return s == null ? null : s.intern(); // null: a caller's defaultNamespace, passed through as before
    }

    private static Optional<String> str(Object o) {
        return o instanceof String s ? Optional.of(s) : Optional.empty();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    private static List<?> list(Object o) {
        return o instanceof List<?> l ? l : List.of();
    }
}
