package io.kvcacheinjector.app.properties;

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
 * A generated kvcache cluster state: Bindings (present, absent, terminating, in another namespace; with or without
 * pool, domain and dtype), pools (every ledger state, empty or unknown backends, endpoint published or not), backends
 * (any protocol, unknown ones included, member groups with and without overrides), the dtype Setting, and whether
 * the view is synced and can read. {@link #directory()} loads it into the ports' fake directory as Kubernetes
 * objects; {@link #resolve} is the test's own reading of docs/reference/kvcache-contract.md, the oracle the properties hold the
 * webhook's answer against.
 */
record KvCacheCluster(List<Binding> bindings, List<Pool> pools, List<Backend> backends, boolean dtypeOwned,
                      ViewHealth health) {

    /** The Binding names Pods refer to. */
    static final List<String> BINDING_NAMES = List.of("chat", "other");
    static final String ENDPOINT = "mc-leader.kv.svc:50051";
    private static final List<String> API_PROTOCOLS = List.of("Auto", "TCP", "RDMA", "EFA", "CANN", "ROCM", "MUSA", "MACA");

    enum ViewHealth { SYNCED, NOT_SYNCED, READS_FAIL }

    record Binding(String namespace, String name, Optional<String> poolRef, Optional<String> domain,
                   Optional<String> dtype, boolean terminating) {
        Map<String, Object> toObject() {
            Map<String, Object> md = new LinkedHashMap<>();
            md.put("name", name);
            md.put("namespace", namespace);
            if (terminating) {
                md.put("deletionTimestamp", "2026-11-30T00:00:00Z");
                md.put("finalizers", List.of("worker.gpustack.ai/binding"));
            }
            Map<String, Object> spec = new LinkedHashMap<>();
            poolRef.ifPresent(p -> spec.put("poolRef", Map.of("name", p)));
            Map<String, Object> domainSpec = new LinkedHashMap<>();
            domain.ifPresent(d -> domainSpec.put("name", d));
            dtype.ifPresent(d -> domainSpec.put("dtype", d));
            spec.put("domain", domainSpec);
            return object("KVCachePoolBinding", md, spec, null);
        }

        /** The domain after D11: absent or empty is {@code default}. */
        String effectiveDomain() {
            return domain.filter(d -> !d.isEmpty()).orElse("default");
        }
    }

    record Ledger(String status, String reason, String message) {
    }

    record Pool(String name, List<String> backends, Optional<String> endpoint, Optional<Ledger> ledger) {
        Map<String, Object> toObject() {
            Map<String, Object> status = new LinkedHashMap<>();
            endpoint.ifPresent(e -> status.put("clientEndpoint", e));
            ledger.ifPresent(l -> status.put("conditions", List.of(
                    Map.of("type", "BackendResolved", "status", "True", "reason", "Resolved", "message", ""),
                    Map.of("type", "QuotaLedgerAvailable", "status", l.status(), "reason", l.reason(),
                            "message", l.message(), "observedGeneration", 3))));
            return object("KVCachePool", Map.of("name", name), Map.of("backends", backends), status);
        }
    }

    /** {@code groups} empty: no managed connection (external, or none at all). */
    record Backend(String name, Optional<String> protocol, Optional<List<Optional<String>>> groups) {
        Map<String, Object> toObject() {
            Map<String, Object> spec = new LinkedHashMap<>();
            protocol.ifPresent(p -> spec.put("transport", Map.of("protocol", p)));
            if (groups.isPresent()) {
                List<Object> members = new ArrayList<>();
                int i = 0;
                for (Optional<String> g : groups.get()) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("name", "g" + i++);
                    m.put("medium", "DRAM");
                    g.ifPresent(p -> m.put("transport", Map.of("protocol", p)));
                    members.add(m);
                }
                spec.put("connection", Map.of("managed", Map.of("members", members)));
            } else {
                spec.put("connection", Map.of("external", Map.of("endpoints", List.of("mc.example:50051"))));
            }
            return object("KVCacheBackend", Map.of("name", name), spec, null);
        }

        /** The effective offers, docs/reference/kvcache-contract.md, in artifact spelling ("" for an unknown enum value). */
        List<String> offers() {
            String wide = artifact(protocol.filter(p -> !p.isEmpty()).orElse("Auto"));
            if (groups.isEmpty() || groups.get().isEmpty()) {
                return List.of(wide);
            }
            return groups.get().stream().map(g -> g.filter(p -> !p.isEmpty()).map(KvCacheCluster::artifact).orElse(wide)).toList();
        }
    }

    /** What a resolvable Binding gives an admission: the test's own reading of docs/reference/kvcache-contract.md. */
    record Resolution(Binding binding, Pool pool, String domain, boolean tenant, String protocol) {
    }

    private static Map<String, Object> object(String kind, Map<String, Object> metadata, Map<String, Object> spec,
                                              Map<String, Object> status) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("apiVersion", "worker.gpustack.ai/v1alpha1");
        o.put("kind", kind);
        o.put("metadata", metadata);
        o.put("spec", spec);
        if (status != null && !status.isEmpty()) {
            o.put("status", status);
        }
        return o;
    }

    static String artifact(String api) {
        return switch (api) {
            case "Auto", "TCP" -> "tcp";
            case "RDMA" -> "rdma";
            case "EFA" -> "efa";
            case "CANN" -> "ascend";
            case "ROCM" -> "hip";
            case "MUSA" -> "musa";
            case "MACA" -> "maca";
            default -> "";
        };
    }

    /** The fake directory holding these objects, behaving as {@link #health} says. */
    FakeClusterDirectory directory() {
        FakeClusterDirectory d = new FakeClusterDirectory();
        bindings.forEach(b -> d.add(b.toObject()));
        pools.forEach(p -> d.add(p.toObject()));
        backends.forEach(b -> d.add(b.toObject()));
        d.dtypeOwned(dtypeOwned);
        switch (health) {
            case NOT_SYNCED -> d.notSynced("informers for kvcachepoolbindings have not synced");
            case READS_FAIL -> d.failing("kvcachepoolbindings.worker.gpustack.ai is forbidden: RBAC");
            case SYNCED -> {
            }
        }
        return d;
    }

    /**
     * The resolution of Binding {@code name} in {@code namespace} for a runtime that requires {@code required}
     * (artifact spelling) or nothing, or empty when an admission must be refused for the cluster's sake.
     */
    Optional<Resolution> resolve(String namespace, String name, Optional<String> required) {
        if (health != ViewHealth.SYNCED) {
            return Optional.empty();
        }
        Optional<Binding> binding = bindings.stream().filter(b -> b.namespace().equals(namespace) && b.name().equals(name)).findFirst();
        if (binding.isEmpty() || binding.get().terminating()) {
            return Optional.empty();
        }
        Optional<String> poolName = binding.get().poolRef().filter(p -> !p.isEmpty());
        Optional<Pool> pool = poolName.flatMap(p -> pools.stream().filter(x -> x.name().equals(p)).findFirst());
        if (pool.isEmpty() || pool.get().ledger().isEmpty()) {
            return Optional.empty();
        }
        Ledger ledger = pool.get().ledger().get();
        boolean tenant = ledger.status().equals("True");
        boolean withoutTenant = ledger.status().equals("False") && ledger.reason().equals("MultiTenancyDisabled");
        if (!tenant && !withoutTenant) {
            return Optional.empty();
        }
        if (pool.get().backends().isEmpty()) {
            return Optional.empty();
        }
        String backendName = pool.get().backends().get(0);
        Optional<Backend> backend = backends.stream().filter(b -> b.name().equals(backendName)).findFirst();
        if (backend.isEmpty() || pool.get().endpoint().filter(e -> !e.isEmpty()).isEmpty()) {
            return Optional.empty();
        }
        List<String> offers = backend.get().offers();
        String protocol;
        if (required.isPresent()) {
            if (!offers.contains(required.get())) {
                return Optional.empty();
            }
            protocol = required.get();
        } else {
            Set<String> distinct = new LinkedHashSet<>(offers);
            distinct.remove("");
            if (distinct.size() != 1) {
                return Optional.empty();
            }
            protocol = distinct.iterator().next();
        }
        return Optional.of(new Resolution(binding.get(), pool.get(), binding.get().effectiveDomain(), tenant, protocol));
    }

    @Override
    public String toString() {
        List<Object> objects = new ArrayList<>();
        bindings.forEach(b -> objects.add(b.toObject()));
        pools.forEach(p -> objects.add(p.toObject()));
        backends.forEach(b -> objects.add(b.toObject()));
        return "cluster (dtype Setting " + (dtypeOwned ? "on" : "off") + ", view " + health + ") " + JsonTrees.text(objects);
    }

    // ---- generation ----

    /**
     * Healthy clusters two times in three (both Bindings in team-a and resolvable, pools with a published endpoint
     * and a ledger that admits, backends with any known protocol and groups that agree), any state otherwise.
     */
    static Arbitrary<KvCacheCluster> clusters() {
        return Arbitraries.frequencyOf(Tuple.of(65, clusters(true)), Tuple.of(35, clusters(false)));
    }

    private static <T> Arbitrary<T> varied(boolean healthy, Arbitrary<T> valid, int percent, Arbitrary<T> awkward) {
        return healthy ? valid : Arbitraries.frequencyOf(Tuple.of(100 - percent, valid), Tuple.of(percent, awkward));
    }

    private static Arbitrary<KvCacheCluster> clusters(boolean healthy) {
        Arbitrary<List<Binding>> bindings = Combinators.combine(binding("chat", healthy), binding("other", healthy))
                .as((a, b) -> {
                    List<Binding> out = new ArrayList<>();
                    a.ifPresent(out::add);
                    b.ifPresent(out::add);
                    return out;
                });
        Arbitrary<List<Pool>> pools = Combinators.combine(
                        varied(healthy, pool("shared", healthy).map(Optional::of), 10, Arbitraries.just(Optional.<Pool>empty())),
                        varied(healthy, pool("spare", healthy).map(Optional::of), 30, Arbitraries.just(Optional.<Pool>empty())))
                .as((a, b) -> {
                    List<Pool> out = new ArrayList<>();
                    a.ifPresent(out::add);
                    b.ifPresent(out::add);
                    return out;
                });
        Arbitrary<List<Backend>> backends = Combinators.combine(
                        varied(healthy, backend("mc", healthy).map(Optional::of), 10, Arbitraries.just(Optional.<Backend>empty())),
                        varied(healthy, backend("nv", healthy).map(Optional::of), 30, Arbitraries.just(Optional.<Backend>empty())))
                .as((a, b) -> {
                    List<Backend> out = new ArrayList<>();
                    a.ifPresent(out::add);
                    b.ifPresent(out::add);
                    return out;
                });
        Arbitrary<ViewHealth> health = varied(healthy, Arbitraries.just(ViewHealth.SYNCED), 12,
                Arbitraries.of(ViewHealth.NOT_SYNCED, ViewHealth.READS_FAIL));
        return Combinators.combine(bindings, pools, backends, Arbitraries.of(true, false), health).as(KvCacheCluster::new);
    }

    /** A Binding called {@code name} (awkward: only in team-b, terminating, absent, without or with an unknown pool). */
    private static Arbitrary<Optional<Binding>> binding(String name, boolean healthy) {
        Arbitrary<String> namespace = varied(healthy, Arbitraries.just("team-a"), 15, Arbitraries.just("team-b"));
        Arbitrary<Optional<String>> poolRef = varied(healthy,
                Arbitraries.frequency(Tuple.of(85, Optional.of("shared")), Tuple.of(15, Optional.of("spare"))), 25,
                Arbitraries.of(Optional.of("nowhere"), Optional.of(""), Optional.<String>empty()));
        Arbitrary<Optional<String>> domain = Arbitraries.frequencyOf(
                Tuple.of(70, Arbitraries.of("team-a-chat", "shared-prefix", "d0").map(Optional::of)),
                Tuple.of(10, Arbitraries.just(Optional.<String>empty())),
                Tuple.of(5, Arbitraries.just(Optional.of(""))),
                Tuple.of(15, Arbitraries.strings().withCharRange('a', 'z').withChars('-').ofMinLength(1).ofMaxLength(20)
                        .map(Optional::of)));
        Arbitrary<Optional<String>> dtype = Arbitraries.frequency(Tuple.of(50, Optional.of("bfloat16")),
                Tuple.of(15, Optional.of("fp8_e4m3")), Tuple.of(15, Optional.<String>empty()), Tuple.of(10, Optional.of("")),
                Tuple.of(10, Optional.of("fp8")));
        Arbitrary<Boolean> terminating = varied(healthy, Arbitraries.just(false), 20, Arbitraries.just(true));
        Arbitrary<Optional<Binding>> present = Combinators.combine(namespace, poolRef, domain, dtype, terminating)
                .as((ns, p, d, t, term) -> Optional.of(new Binding(ns, name, p, d, t, term)));
        return varied(healthy, present, 15, Arbitraries.just(Optional.empty()));
    }

    private static Arbitrary<Pool> pool(String name, boolean healthy) {
        Arbitrary<List<String>> backends = varied(healthy,
                Arbitraries.frequency(Tuple.of(75, List.of("mc")), Tuple.of(15, List.of("nv")), Tuple.of(10, List.of("mc", "nv"))),
                25, Arbitraries.of(List.<String>of(), List.of("gone")));
        Arbitrary<Optional<String>> endpoint = varied(healthy, Arbitraries.just(Optional.of(ENDPOINT)), 25,
                Arbitraries.of(Optional.of(""), Optional.<String>empty()));
        Arbitrary<Optional<Ledger>> ledger = varied(healthy,
                Arbitraries.frequency(Tuple.of(70, Optional.of(new Ledger("True", "Available", ""))),
                        Tuple.of(30, Optional.of(new Ledger("False", "MultiTenancyDisabled", "multi-tenancy is off")))),
                35, Arbitraries.of(
                        Optional.of(new Ledger("False", "LedgerUnreachable",
                                "dial tcp 10.0.0.9:50051: connect: connection refused\n\"quoted\"\u2028next")),
                        Optional.of(new Ledger("False", "QuotaPolicyNotWritable", "policy ✗")),
                        Optional.of(new Ledger("Unknown", "Pending", "")),
                        Optional.of(new Ledger("", "", "")),
                        Optional.<Ledger>empty()));
        return Combinators.combine(backends, endpoint, ledger).as((b, e, l) -> new Pool(name, b, e, l));
    }

    /** A backend: any known protocol, groups that inherit or agree (awkward: unknown values, groups that disagree). */
    private static Arbitrary<Backend> backend(String name, boolean healthy) {
        Arbitrary<String> known = Arbitraries.frequencyOf(Tuple.of(10, Arbitraries.of(API_PROTOCOLS)),
                Tuple.of(4, Arbitraries.just("CANN")));
        Arbitrary<String> api = varied(healthy, known, 15, Arbitraries.of("", "Infiniband", "tcp"));
        Arbitrary<Optional<String>> protocol = api.optional(0.8);
        if (healthy) {
            Arbitrary<Optional<List<Optional<String>>>> groups = Arbitraries.integers().between(0, 4)
                    .map(n -> Optional.of(java.util.Collections.nCopies(n, Optional.<String>empty())));
            return Combinators.combine(protocol, groups.optional(0.7).map(o -> o.flatMap(x -> x)))
                    .as((p, g) -> new Backend(name, p, g));
        }
        Arbitrary<Optional<String>> override = Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.just(Optional.<String>empty())),
                Tuple.of(2, api.map(Optional::of)));
        Arbitrary<Optional<List<Optional<String>>>> groups = override.list().ofMinSize(0).ofMaxSize(4)
                .map(l -> (List<Optional<String>>) new ArrayList<>(l)).optional(0.7);
        return Combinators.combine(protocol, groups).as((p, g) -> new Backend(name, p, g));
    }
}
