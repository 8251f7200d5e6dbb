package io.kvcacheinjector.app.properties;

import io.kvcacheinjector.app.properties.KvCacheCluster.ViewHealth;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.testing.FakeClusterDirectory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * A generated CacheBlend cluster state and install: {@code CacheBlendEngine}s (payload image set, blank or absent;
 * tag and pull policy defaulted or not; pull secrets; target container; every cudagraph mode and an unknown one;
 * {@code hostIPC} unset, true or false; PD or not), their connection ConfigMaps (present or not; each key valid,
 * truncated, not an object, without a connector, empty or absent), the allow-list, the fail-closed switch, and
 * whether the view is synced and can read.
 */
record CacheBlendCluster(List<Engine> engines, List<ConnectionMap> connections, Set<String> allowedNamespaces,
                         boolean failClosed, ViewHealth health) {

    static final String WEBHOOK_NAMESPACE = "gpustack-system";
    static final String BASE_KEY = "kv-transfer-config.json";
    static final String PREFILLER_KEY = "kv-transfer-config-prefiller.json";
    static final String DECODER_KEY = "kv-transfer-config-decoder.json";
    /** The engines Pods refer to: namespace and name. */
    static final List<List<String>> ENGINES = List.of(List.of("team-a", "cb"), List.of("team-a", "pd-cb"),
            List.of("lmcache-shared", "shared-cb"), List.of("ops", "private-cb"));

    record Engine(String namespace, String name, Optional<String> repository, Optional<String> tag,
                  Optional<String> pullPolicy, List<String> pullSecrets, Optional<String> targetContainer,
                  Optional<String> cudagraph, Optional<Boolean> hostIpc, Optional<Map<String, Object>> pd) {
        Map<String, Object> toObject() {
            Map<String, Object> payload = new LinkedHashMap<>();
            repository.ifPresent(r -> payload.put("repository", r));
            tag.ifPresent(t -> payload.put("tag", t));
            pullPolicy.ifPresent(p -> payload.put("pullPolicy", p));
            Map<String, Object> injection = new LinkedHashMap<>();
            if (!payload.isEmpty()) {
                injection.put("payloadImage", payload);
            }
            if (!pullSecrets.isEmpty()) {
                injection.put("imagePullSecrets", pullSecrets.stream().map(s -> Map.of("name", s)).toList());
            }
            targetContainer.ifPresent(t -> injection.put("targetContainer", t));
            cudagraph.ifPresent(c -> injection.put("cudagraph", c));
            Map<String, Object> spec = new LinkedHashMap<>();
            spec.put("l1", Map.of("sizeGB", 60));
            spec.put("injection", injection);
            hostIpc.ifPresent(h -> spec.put("hostIPC", h));
            pd.ifPresent(p -> spec.put("pd", p));
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("apiVersion", "lmcache.lmcache.ai/v1alpha1");
            o.put("kind", "CacheBlendEngine");
            o.put("metadata", Map.of("name", name, "namespace", namespace));
            o.put("spec", spec);
            return o;
        }

        /** The payload image as the init container gets it: {@code repository:tag}, tag {@code latest} by default. */
        String image() {
            return repository.orElse("") + ":" + tag.filter(t -> !t.isEmpty()).orElse("latest");
        }
    }

    record ConnectionMap(String namespace, String engineName, Map<String, String> data) {
        Map<String, Object> toObject() {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("apiVersion", "v1");
            o.put("kind", "ConfigMap");
            o.put("metadata", Map.of("name", engineName + "-connection", "namespace", namespace,
                    "labels", Map.of("app.kubernetes.io/managed-by", "lmcache-operator")));
            o.put("data", data);
            return o;
        }
    }

    FakeClusterDirectory directory() {
        FakeClusterDirectory d = new FakeClusterDirectory();
        engines.forEach(e -> d.add(e.toObject()));
        connections.forEach(c -> d.add(c.toObject()));
        switch (health) {
            case NOT_SYNCED -> d.notSynced("informers for cacheblendengines have not synced");
            case READS_FAIL -> d.failing("cacheblendengines.lmcache.lmcache.ai is forbidden: RBAC");
            case SYNCED -> {
            }
        }
        return d;
    }

    CacheBlendSettings settings() {
        return new CacheBlendSettings(allowedNamespaces, failClosed,
                Set.of("kube-system", "kube-public", WEBHOOK_NAMESPACE));
    }

    Optional<Engine> engine(String namespace, String name) {
        return engines.stream().filter(e -> e.namespace().equals(namespace) && e.name().equals(name)).findFirst();
    }

    Optional<ConnectionMap> connection(String namespace, String engineName) {
        return connections.stream().filter(c -> c.namespace().equals(namespace) && c.engineName().equals(engineName)).findFirst();
    }

    @Override
    public String toString() {
        List<Object> objects = new ArrayList<>();
        engines.forEach(e -> objects.add(e.toObject()));
        connections.forEach(c -> objects.add(c.toObject()));
        return "cluster (allowed " + allowedNamespaces + ", fail-closed " + failClosed + ", view " + health + ") "
                + JsonTrees.text(objects);
    }

    // ---- generation ----

    /** A well-formed connection value, pretty-printed over several lines as the operator writes it. */
    static String connectionJson(String engine, String namespace, String role) {
        return "{\n  \"kv_connector\": \"CBKVConnector\",\n  \"kv_connector_extra_config\": {\n    \"cb.check_layer\": 1,\n"
                + "    \"cb.recomp_ratio\": 0.15,\n    \"lmcache.mp.host\": \"tcp://" + engine + "." + namespace
                + ".svc.cluster.local\",\n    \"lmcache.mp.port\": \"5555\",\n    \"note\": \"ü \\u2028 ✓\"\n  },\n"
                + "  \"kv_connector_module_path\": \"lmcache_cacheblend.connector\",\n  \"kv_role\": \"" + role + "\"\n}";
    }

    /** Healthy clusters two times in three, any state otherwise. */
    static Arbitrary<CacheBlendCluster> clusters() {
        return Arbitraries.frequencyOf(Tuple.of(65, clusters(true)), Tuple.of(35, clusters(false)));
    }

    private static <T> Arbitrary<T> varied(boolean healthy, Arbitrary<T> valid, int percent, Arbitrary<T> awkward) {
        return healthy ? valid : Arbitraries.frequencyOf(Tuple.of(100 - percent, valid), Tuple.of(percent, awkward));
    }

    private static Arbitrary<CacheBlendCluster> clusters(boolean healthy) {
        List<Arbitrary<Optional<Engine>>> engines = new ArrayList<>();
        List<Arbitrary<Optional<ConnectionMap>>> connections = new ArrayList<>();
        for (List<String> e : ENGINES) {
            engines.add(varied(healthy, engine(e.get(0), e.get(1), healthy).map(Optional::of), 15,
                    Arbitraries.just(Optional.empty())));
            connections.add(varied(healthy, connection(e.get(0), e.get(1), healthy).map(Optional::of), 15,
                    Arbitraries.just(Optional.empty())));
        }
        Arbitrary<List<Engine>> engineList = Combinators.combine(engines).as(l -> l.stream().flatMap(Optional::stream).toList());
        Arbitrary<List<ConnectionMap>> connectionList = Combinators.combine(connections)
                .as(l -> l.stream().flatMap(Optional::stream).toList());
        Arbitrary<Set<String>> allowed = Arbitraries.of("lmcache-shared", "ops").set().ofMaxSize(2)
                .map(s -> (Set<String>) new LinkedHashSet<>(s));
        Arbitrary<ViewHealth> health = varied(healthy, Arbitraries.just(ViewHealth.SYNCED), 12,
                Arbitraries.of(ViewHealth.NOT_SYNCED, ViewHealth.READS_FAIL));
        return Combinators.combine(engineList, connectionList, allowed,
                        Arbitraries.frequency(Tuple.of(75, false), Tuple.of(25, true)), health)
                .as(CacheBlendCluster::new);
    }

    private static Arbitrary<Engine> engine(String namespace, String name, boolean healthy) {
        Arbitrary<Optional<String>> repository = varied(healthy,
                Arbitraries.of("tensormesh/cacheblend-plugin", "registry.example:5000/tm/cacheblend-plugin").map(Optional::of),
                25, Arbitraries.of(Optional.of(""), Optional.of("  "), Optional.<String>empty()));
        Arbitrary<Optional<String>> tag = Arbitraries.of(Optional.of("v0.5.3"), Optional.of(""), Optional.<String>empty());
        Arbitrary<Optional<String>> pullPolicy = Arbitraries.of(Optional.of("Always"), Optional.of("IfNotPresent"),
                Optional.<String>empty());
        Arbitrary<List<String>> secrets = Arbitraries.of("cacheblend-plugin-pull", "tm-pull", " ", "registry")
                .list().ofMaxSize(2).map(List::copyOf);
        Arbitrary<Optional<String>> target = varied(healthy,
                Arbitraries.frequency(Tuple.of(85, Optional.<String>empty()), Tuple.of(15, Optional.of(""))), 30,
                Arbitraries.of(Optional.of("vllm"), Optional.of("server"), Optional.of("missing")));
        Arbitrary<Optional<String>> cudagraph = Arbitraries.of(Optional.<String>empty(), Optional.of("eager"),
                Optional.of("piecewise"), Optional.of("full_decode_only"), Optional.of("FULL"), Optional.of(""));
        Arbitrary<Optional<Boolean>> hostIpc = Arbitraries.of(Optional.<Boolean>empty(), Optional.of(true), Optional.of(false));
        Arbitrary<Optional<Map<String, Object>>> pd = Arbitraries.frequency(Tuple.of(70, Optional.<Map<String, Object>>empty()),
                Tuple.of(15, Optional.of(Map.<String, Object>of())),
                Tuple.of(15, Optional.of(Map.<String, Object>of("nixlSideChannelPort", 5600))));
        return Combinators.combine(repository, tag, pullPolicy, secrets, target, cudagraph, hostIpc, pd)
                .as((r, t, p, s, tc, cg, h, d) -> new Engine(namespace, name, r, t, p, s, tc, cg, h, d));
    }

    private static Arbitrary<ConnectionMap> connection(String namespace, String engine, boolean healthy) {
        Arbitrary<Optional<String>> broken = Arbitraries.of(
                Optional.of("{\n  \"kv_connector\": \"CBKVConnector\",\n"), Optional.of("{\"kv_role\": \"kv_both\"}"),
                Optional.of("[]"), Optional.of(""), Optional.of("{\"kv_connector\": \"\"}"), Optional.of("{\"kv_connector\": 5}"),
                Optional.of("{\"kv_connector\":\"A\",\"kv_connector\":\"B\"}"), Optional.<String>empty());
        Arbitrary<Optional<String>> base = varied(healthy, Arbitraries.just(Optional.of(connectionJson(engine, namespace, "kv_both"))),
                30, broken);
        Arbitrary<Optional<String>> prefiller = varied(healthy,
                Arbitraries.just(Optional.of(connectionJson(engine, namespace, "kv_producer"))), 40, broken);
        Arbitrary<Optional<String>> decoder = varied(healthy,
                Arbitraries.just(Optional.of(connectionJson(engine, namespace, "kv_consumer"))), 40, broken);
        return Combinators.combine(base, prefiller, decoder).as((b, p, d) -> {
            Map<String, String> data = new LinkedHashMap<>();
            b.ifPresent(v -> data.put(BASE_KEY, v));
            p.ifPresent(v -> data.put(PREFILLER_KEY, v));
            d.ifPresent(v -> data.put(DECODER_KEY, v));
            return new ConnectionMap(namespace, engine, data);
        });
    }
}
