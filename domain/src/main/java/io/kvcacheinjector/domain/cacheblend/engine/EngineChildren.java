package io.kvcacheinjector.domain.cacheblend.engine;

import io.kvcacheinjector.domain.cacheblend.CacheBlendKeys;
import io.kvcacheinjector.domain.json.IndentedJson;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The children of a valid {@code CacheBlendEngine}, as plain JSON objects in the order the controller applies them
 * (docs/reference/cacheblend-engine.md "Children"): the RESP auth Secret copy (when the spec references one), the
 * engine DaemonSet, the lookup Service ({@code internalTrafficPolicy: Local}), the headless metrics Service (when
 * Prometheus is on), the {@code <engine>-connection} ConfigMap, and the ServiceMonitor (when asked for and served).
 */
public final class EngineChildren {
    public static final String MANAGED_BY = "kvcache-injector";
    public static final String APP_NAME = "cacheblend-engine";
    public static final String CONTAINER = "lmcache-server";
    public static final long L1_ALIGN_BYTES = 16_777_216L;
    public static final String COPIED_FROM = "kvcache-injector.io/copied-from";

    private EngineChildren() {
    }

    /** The children of {@code engine} with {@code spec}, in apply order. */
    public static List<Map<String, Object>> render(EngineIdentity engine, EngineSpec spec, RenderContext context) {
        List<Map<String, Object>> out = new ArrayList<>();
        respAuthSecret(engine, spec, context).ifPresent(out::add);
        out.add(daemonSet(engine, spec));
        out.add(lookupService(engine, spec));
        if (spec.prometheus().enabled()) {
            out.add(metricsService(engine, spec));
        }
        out.add(connectionConfigMap(engine, spec));
        if (spec.prometheus().enabled() && spec.prometheus().serviceMonitor() && context.serviceMonitorServed()) {
            out.add(serviceMonitor(engine, spec));
        }
        return out;
    }

    /** The name of the RESP auth Secret copy in the engine's namespace. */
    public static String respAuthSecretName(EngineIdentity engine) {
        return engine.name() + "-resp-auth";
    }

    /** The labels every child carries ({@code component} says which one it is). */
    public static Map<String, Object> labels(EngineIdentity engine, String component) {
        Map<String, Object> l = selector(engine);
        l.put("app.kubernetes.io/component", component);
        l.put("app.kubernetes.io/managed-by", MANAGED_BY);
        return l;
    }

    /** The engine Pods' selector labels: {@code app.kubernetes.io/name} and {@code app.kubernetes.io/instance}. */
    public static Map<String, Object> selector(EngineIdentity engine) {
        Map<String, Object> l = new LinkedHashMap<>();
        l.put("app.kubernetes.io/name", APP_NAME);
        l.put("app.kubernetes.io/instance", engine.name());
        return l;
    }

    private static Optional<Map<String, Object>> respAuthSecret(EngineIdentity engine, EngineSpec spec,
                                                                RenderContext context) {
        Optional<EngineSpec.SecretRef> ref = spec.l2().flatMap(EngineSpec.L2Backend::authSecret);
        if (ref.isEmpty()) {
            return Optional.empty();
        }
        String sourceNs = ref.get().namespace().isEmpty() ? engine.namespace() : ref.get().namespace();
        Map<String, Object> meta = metadata(engine, respAuthSecretName(engine), "l2-auth");
        meta.put("annotations", ordered(COPIED_FROM, sourceNs + "/" + ref.get().name()));
        Map<String, Object> s = object("v1", "Secret", meta);
        s.put("type", "Opaque");
        context.respAuthData().ifPresent(data -> s.put("data", new java.util.TreeMap<String, Object>(data)));
        return Optional.of(s);
    }

    private static Map<String, Object> daemonSet(EngineIdentity engine, EngineSpec spec) {
        Map<String, Object> podLabels = new LinkedHashMap<>(spec.pod().podLabels());
        podLabels.putAll(labels(engine, "engine"));
        Map<String, Object> podMeta = new LinkedHashMap<>();
        podMeta.put("labels", podLabels);
        if (!spec.pod().podAnnotations().isEmpty()) {
            podMeta.put("annotations", new LinkedHashMap<String, Object>(spec.pod().podAnnotations()));
        }
        Map<String, Object> pod = new LinkedHashMap<>();
        if (spec.usesHostIpc()) {
            pod.put("hostIPC", true);
        }
        if ("nvidia".equals(spec.gpuVendor())) {
            pod.put("runtimeClassName", "nvidia");
        }
        if (!spec.nodeSelector().isEmpty()) {
            pod.put("nodeSelector", new LinkedHashMap<String, Object>(spec.nodeSelector()));
        }
        spec.pod().affinity().ifPresent(a -> pod.put("affinity", a));
        if (!spec.pod().tolerations().isEmpty()) {
            pod.put("tolerations", spec.pod().tolerations());
        }
        spec.pod().serviceAccountName().ifPresent(s -> pod.put("serviceAccountName", s));
        spec.pod().priorityClassName().ifPresent(s -> pod.put("priorityClassName", s));
        if (!spec.imagePullSecrets().isEmpty()) {
            pod.put("imagePullSecrets", spec.imagePullSecrets().stream()
                    .map(n -> (Object) ordered("name", n)).toList());
        }
        pod.put("containers", List.of(container(engine, spec)));
        List<Object> volumes = new ArrayList<>();
        if (!spec.usesHostIpc()) {
            volumes.add(ordered("name", CacheBlendKeys.DEV_SHM_VOLUME,
                    "hostPath", ordered("path", CacheBlendKeys.DEV_SHM_PATH, "type", "Directory")));
        }
        volumes.addAll(spec.pod().volumes());
        if (!volumes.isEmpty()) {
            pod.put("volumes", volumes);
        }
        Map<String, Object> template = new LinkedHashMap<>();
        template.put("metadata", podMeta);
        template.put("spec", pod);
        Map<String, Object> dsSpec = new LinkedHashMap<>();
        dsSpec.put("selector", ordered("matchLabels", selector(engine)));
        dsSpec.put("template", template);
        Map<String, Object> ds = object("apps/v1", "DaemonSet", metadata(engine, engine.name(), "engine"));
        ds.put("spec", dsSpec);
        return ds;
    }

    private static Map<String, Object> container(EngineIdentity engine, EngineSpec spec) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("name", CONTAINER);
        c.put("image", spec.image().reference());
        c.put("imagePullPolicy", spec.image().pullPolicy());
        c.put("command", List.of("lmcache", "server"));
        c.put("args", args(engine, spec));
        List<Object> ports = new ArrayList<>();
        ports.add(port("server", spec.port()));
        if (spec.prometheus().enabled()) {
            ports.add(port("metrics", spec.prometheus().port()));
        }
        c.put("ports", ports);
        c.put("env", env(engine, spec));
        c.put("resources", resources(spec));
        c.put("startupProbe", probe(spec.port(), 5, 5, 30));
        c.put("livenessProbe", probe(spec.port(), 0, 10, 0));
        c.put("readinessProbe", probe(spec.port(), 0, 5, 0));
        if (spec.privileged()) {
            c.put("securityContext", ordered("privileged", true));
        }
        List<Object> mounts = new ArrayList<>();
        if (!spec.usesHostIpc()) {
            mounts.add(ordered("name", CacheBlendKeys.DEV_SHM_VOLUME, "mountPath", CacheBlendKeys.DEV_SHM_PATH));
        }
        mounts.addAll(spec.pod().volumeMounts());
        if (!mounts.isEmpty()) {
            c.put("volumeMounts", mounts);
        }
        return c;
    }

    /** The engine's arguments, in the documented order. */
    public static List<Object> args(EngineIdentity engine, EngineSpec spec) {
        List<Object> a = new ArrayList<>();
        add(a, "--host", "0.0.0.0");
        add(a, "--port", Integer.toString(spec.port()));
        add(a, "--l1-size-gb", IndentedJson.goFloat(spec.l1SizeGb()));
        add(a, "--chunk-size", Integer.toString(spec.chunkSize()));
        add(a, "--max-workers", Integer.toString(spec.maxWorkers()));
        add(a, "--hash-algorithm", spec.hashAlgorithm());
        add(a, "--eviction-policy", spec.evictionPolicy());
        add(a, "--eviction-trigger-watermark", IndentedJson.goFloat(spec.triggerWatermark()));
        add(a, "--eviction-ratio", IndentedJson.goFloat(spec.evictionRatio()));
        if (spec.prometheus().enabled()) {
            add(a, "--prometheus-port", Integer.toString(spec.prometheus().port()));
        }
        spec.l2().ifPresent(l2 -> {
            if (l2.respHost().isPresent()) {
                add(a, "--l2-adapter", "resp");
                add(a, "--l2-resp-host", l2.respHost().get());
                add(a, "--l2-resp-port", Integer.toString(l2.respPort()));
            } else {
                a.addAll(l2.rawArgs());
            }
        });
        spec.coordinator().ifPresent(c -> add(a, "--coordinator-url", c.url().orElseGet(() -> "tcp://" + c.refName()
                + "." + (c.refNamespace().isEmpty() ? engine.namespace() : c.refNamespace()) + ".svc.cluster.local")));
        add(a, "--engine-type", "blend");
        add(a, "--l1-align-bytes", Long.toString(L1_ALIGN_BYTES));
        a.addAll(spec.extraArgs());
        return a;
    }

    private static List<Object> env(EngineIdentity engine, EngineSpec spec) {
        List<Object> env = new ArrayList<>();
        java.util.Set<Object> userNames = new java.util.HashSet<>();
        for (Object e : spec.pod().env()) {
            if (e instanceof Map<?, ?> m) {
                userNames.add(m.get("name"));
            }
        }
        if (!userNames.contains("LMCACHE_LOG_LEVEL")) {
            env.add(envVar("LMCACHE_LOG_LEVEL", spec.logLevel()));
        }
        if ("nvidia".equals(spec.gpuVendor()) && !userNames.contains("NVIDIA_VISIBLE_DEVICES")) {
            env.add(envVar("NVIDIA_VISIBLE_DEVICES", "all"));
        }
        if (spec.l2().flatMap(EngineSpec.L2Backend::authSecret).isPresent() && !userNames.contains(RESP_PASSWORD_ENV)) {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("name", RESP_PASSWORD_ENV);
            v.put("valueFrom", ordered("secretKeyRef", ordered("name", respAuthSecretName(engine), "key", "password")));
            env.add(v);
        }
        env.addAll(spec.pod().env());
        return env;
    }

    /** The env var that gives the engine the RESP password from the copied Secret (key {@code password}). */
    public static final String RESP_PASSWORD_ENV = "LMCACHE_L2_RESP_PASSWORD";

    private static Map<String, Object> resources(EngineSpec spec) {
        long request = (long) Math.ceil(spec.l1SizeGb() + 5);
        long limit = (long) Math.ceil(request * 1.5);
        Map<String, Object> requests = new LinkedHashMap<>();
        requests.put("memory", request + "Gi");
        Map<String, Object> limits = new LinkedHashMap<>();
        limits.put("memory", limit + "Gi");
        Map<String, Object> overrides = spec.pod().resourceOverrides();
        if (overrides.get("requests") instanceof Map<?, ?> m) {
            m.forEach((k, v) -> requests.put(String.valueOf(k), v));
        }
        if (overrides.get("limits") instanceof Map<?, ?> m) {
            m.forEach((k, v) -> limits.put(String.valueOf(k), v));
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("requests", requests);
        r.put("limits", limits);
        return r;
    }

    private static Map<String, Object> lookupService(EngineIdentity engine, EngineSpec spec) {
        Map<String, Object> svc = object("v1", "Service", metadata(engine, engine.name(), "lookup"));
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("type", "ClusterIP");
        s.put("internalTrafficPolicy", "Local");
        s.put("selector", selector(engine));
        s.put("ports", List.of(servicePort("server", spec.port())));
        svc.put("spec", s);
        return svc;
    }

    private static Map<String, Object> metricsService(EngineIdentity engine, EngineSpec spec) {
        Map<String, Object> svc = object("v1", "Service", metadata(engine, engine.name() + "-metrics", "metrics"));
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("clusterIP", "None");
        s.put("selector", selector(engine));
        s.put("ports", List.of(servicePort("metrics", spec.prometheus().port())));
        svc.put("spec", s);
        return svc;
    }

    private static Map<String, Object> connectionConfigMap(EngineIdentity engine, EngineSpec spec) {
        Map<String, Object> cm = object("v1", "ConfigMap",
                metadata(engine, CacheBlendKeys.connectionName(engine.name()), "connection"));
        Map<String, Object> data = new LinkedHashMap<>();
        data.put(CacheBlendKeys.CONNECTION_KEY, ConnectionJson.render(engine, spec, "kv_both"));
        if (spec.pd()) {
            data.put(CacheBlendKeys.CONNECTION_KEY_PREFILLER, ConnectionJson.render(engine, spec, "kv_producer"));
            data.put(CacheBlendKeys.CONNECTION_KEY_DECODER, ConnectionJson.render(engine, spec, "kv_consumer"));
        }
        cm.put("data", data);
        return cm;
    }

    private static Map<String, Object> serviceMonitor(EngineIdentity engine, EngineSpec spec) {
        Map<String, Object> meta = metadata(engine, engine.name(), "metrics");
        @SuppressWarnings("unchecked")
        Map<String, Object> labels = (Map<String, Object>) meta.get("labels");
        spec.prometheus().serviceMonitorLabels().forEach(labels::putIfAbsent);
        Map<String, Object> sm = object("monitoring.coreos.com/v1", "ServiceMonitor", meta);
        Map<String, Object> matchLabels = selector(engine);
        matchLabels.put("app.kubernetes.io/component", "metrics");
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("selector", ordered("matchLabels", matchLabels));
        s.put("endpoints", List.of(ordered("port", "metrics", "interval", spec.prometheus().interval())));
        sm.put("spec", s);
        return sm;
    }

    private static Map<String, Object> object(String apiVersion, String kind, Map<String, Object> metadata) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("apiVersion", apiVersion);
        o.put("kind", kind);
        o.put("metadata", metadata);
        return o;
    }

    private static Map<String, Object> metadata(EngineIdentity engine, String name, String component) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("namespace", engine.namespace());
        m.put("labels", labels(engine, component));
        engine.uid().ifPresent(uid -> {
            Map<String, Object> owner = new LinkedHashMap<>();
            owner.put("apiVersion", EngineIdentity.API_VERSION);
            owner.put("kind", EngineIdentity.KIND);
            owner.put("name", engine.name());
            owner.put("uid", uid);
            owner.put("controller", true);
            owner.put("blockOwnerDeletion", true);
            m.put("ownerReferences", List.of(owner));
        });
        return m;
    }

    private static Map<String, Object> probe(int port, int initialDelay, int period, int failures) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("tcpSocket", ordered("port", (long) port));
        if (initialDelay > 0) {
            p.put("initialDelaySeconds", (long) initialDelay);
        }
        p.put("periodSeconds", (long) period);
        if (failures > 0) {
            p.put("failureThreshold", (long) failures);
        }
        return p;
    }

    private static Map<String, Object> port(String name, int port) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("name", name);
        p.put("containerPort", (long) port);
        p.put("protocol", "TCP");
        return p;
    }

    private static Map<String, Object> servicePort(String name, int port) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("name", name);
        p.put("port", (long) port);
        p.put("targetPort", name);
        p.put("protocol", "TCP");
        return p;
    }

    private static Map<String, Object> envVar(String name, String value) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", name);
        e.put("value", value);
        return e;
    }

    /** A map that keeps the order its entries are given in, so the rendering is byte-stable. */
    private static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    private static void add(List<Object> a, String flag, String value) {
        a.add(flag);
        a.add(value);
    }
}
