package io.kvcacheinjector.app.properties;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvcacheinjector.app.wiring.AdmissionWiring;
import io.kvcacheinjector.adapters.http.AdmissionAnswer;
import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.adapters.http.review.AdmissionResponseWriter;
import io.kvcacheinjector.app.engines.BuiltInEngines;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.ports.service.CacheBlendInjection;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.service.KvCacheFreeze;
import io.kvcacheinjector.ports.service.KvCacheInjection;
import io.kvcacheinjector.ports.spi.Engines;
import io.kvcacheinjector.ports.testing.FakeClusterDirectory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.statistics.Statistics;
import org.assertj.core.api.SoftAssertions;

/**
 * The kvcache mutate use case ({@code /kvcache/mutate}), wired as the server wires it (engines by ServiceLoader),
 * over generated Pods and cluster states. Each property names one guarantee of docs/explanation/reliability.md.
 */
@AddLifecycleHook(PropertyTries.class)
class KvCacheInjectionProperties {
    private static final Engines ENGINES = BuiltInEngines.engines();
    private static final String INJECTED = KvCachePods.PREFIX + "injected";
    private static final String CLIENT_CONFIG = KvCachePods.PREFIX + "client-config";
    private static final String VOLUME = "gpustack-kvcache-config";
    private static final List<String> RECORD_KEYS = List.of("binding", "engine", "vehicle", "domain", "tenantInjected",
            "launchProgram", "launchArgsForwarded");

    @Provide
    Arbitrary<GeneratedPod> pods() {
        return KvCachePods.pods();
    }

    @Provide
    Arbitrary<KvCacheCluster> clusters() {
        return KvCacheCluster.clusters();
    }

    private static KvCacheInjection useCase(KvCacheCluster cluster) {
        FakeClusterDirectory directory = cluster.directory();
        return new KvCacheInjection(directory, directory, ENGINES);
    }

    private static Decision decide(KvCacheCluster cluster, GeneratedPod pod) {
        return useCase(cluster).mutate(pod.requestNamespace(), new ReceivedPod(pod.object()));
    }

    /** Records the outcome and requires the generators to reach every outcome often enough to mean something. */
    private static void count(Decision decision) {
        Statistics.label("outcome").collect(Outcomes.kind(decision));
        Statistics.label("outcome").coverage(c -> {
            c.check(Outcomes.PATCHED).percentage(p -> p >= 15);
            c.check(Outcomes.REFUSED).percentage(p -> p >= 15);
            c.check(Outcomes.UNCHANGED).percentage(p -> p >= 5);
        });
    }

    // 1. ------------------------------------------------------------------------------------------------------------

    @Property
    void everyAdmittedPatchAppliesCleanlyToThePodAsReceived(@ForAll("pods") GeneratedPod pod,
                                                            @ForAll("clusters") KvCacheCluster cluster) {
        JsonNode original = JsonTrees.tree(pod.object());
        Decision decision = decide(cluster, pod);
        count(decision);
        List<PatchOp> patch = Outcomes.patch(decision);
        if (!patch.isEmpty()) {
            JsonNode patched = Patches.apply(patch, original);
            assertThat(patched).as("the patch changes the Pod").isNotEqualTo(original);
        }
    }

    // 2. ------------------------------------------------------------------------------------------------------------

    @Property
    void anAdmittedPatchChangesOnlyContractPathsAndNeverCommandOrAnotherContainer(
            @ForAll("pods") GeneratedPod pod, @ForAll("clusters") KvCacheCluster cluster) {
        JsonNode original = JsonTrees.tree(pod.object());
        Decision decision = decide(cluster, pod);
        count(decision);
        List<PatchOp> patch = Outcomes.patch(decision);
        if (patch.isEmpty()) {
            return;
        }
        int target = targetIndex(pod);
        assertThat(target).as("an admission with a patch has a target container the annotations name").isNotNegative();
        List<Pattern> allowed = List.of(
                Pattern.compile("/spec/containers/" + target + "/(args|env|volumeMounts)(/.*)?"),
                Pattern.compile("/spec/volumes(/.*)?"),
                Pattern.compile("/metadata/annotations"),
                Pattern.compile("/metadata/annotations/kvcache\\.gpustack\\.ai~1(client-config|injected)"));
        JsonNode patched = Patches.apply(patch, original);
        for (String path : Patches.opPaths(patch)) {
            assertThat(allowed).as("patch operation path %s is a contract path", path)
                    .anyMatch(p -> p.matcher(path).matches());
        }
        for (String path : Patches.changedPaths(original, patched)) {
            assertThat(allowed).as("changed path %s is a contract path", path).anyMatch(p -> p.matcher(path).matches());
        }
        PodAssertions.assertOnlyTargetChanges(original, patched, target);
        assertThat(patched.path("spec").path("initContainers")).as("init containers never change")
                .isEqualTo(original.path("spec").path("initContainers"));
    }

    // 3. ------------------------------------------------------------------------------------------------------------

    @Property
    void aPatchedPodRoundTripsThroughTheFabric8PodModel(@ForAll("pods") GeneratedPod pod,
                                                         @ForAll("clusters") KvCacheCluster cluster) {
        JsonNode original = JsonTrees.tree(pod.object());
        Decision decision = decide(cluster, pod);
        count(decision);
        List<PatchOp> patch = Outcomes.patch(decision);
        if (patch.isEmpty()) {
            return;
        }
        JsonNode patched = Patches.apply(patch, original);
        assertThat(Fabric8RoundTrip.roundTrip(patched)).as("the patched Pod through io.fabric8...Pod and back")
                .isEqualTo(Fabric8RoundTrip.normalised(patched));
    }

    // 4. ------------------------------------------------------------------------------------------------------------

    @Property
    void theInjectionRecordMatchesWhatWasWrittenAndTheCluster(@ForAll("pods") GeneratedPod pod,
                                                              @ForAll("clusters") KvCacheCluster cluster) {
        JsonNode original = JsonTrees.tree(pod.object());
        Decision decision = decide(cluster, pod);
        count(decision);
        List<PatchOp> patch = Outcomes.patch(decision);
        if (patch.isEmpty()) {
            return;
        }
        JsonNode patched = Patches.apply(patch, original);
        JsonNode annotations = patched.path("metadata").path("annotations");
        String recordText = annotations.path(INJECTED).asText(null);
        assertThat(recordText).as("the admitted Pod carries %s", INJECTED).isNotNull();
        JsonNode record = JsonTrees.parse(recordText);
        assertThat(fieldNames(record)).as("the record's keys, in order").containsExactlyElementsOf(RECORD_KEYS);
        assertThat(recordText).as("the record is compact JSON").isEqualTo(record.toString());

        String runtime = expectedRuntime(pod);
        String binding = pod.annotation(KvCachePods.PREFIX + "binding").orElseThrow();
        assertThat(record.get("binding").asText()).as("binding is the annotation as written").isEqualTo(binding);
        assertThat(record.get("engine").asText()).as("engine is the runtime id").isEqualTo(runtime);

        KvCacheCluster.Resolution resolution = cluster.resolve(pod.effectiveNamespace(), binding,
                runtime.equals("vllm-ascend") ? Optional.of("ascend") : Optional.empty()).orElse(null);
        if (resolution == null) {
            fail("admitted although the cluster cannot resolve Binding %s/%s for %s: %s", pod.effectiveNamespace(), binding,
                    runtime, cluster);
            return;
        }
        assertThat(record.get("domain").asText()).as("domain is the Binding's (D11)").isEqualTo(resolution.domain());
        boolean tenant = record.get("tenantInjected").asBoolean();
        assertThat(record.get("tenantInjected").isBoolean()).isTrue();
        assertThat(tenant).as("tenantInjected follows the ledger (D10)").isEqualTo(resolution.tenant());

        int target = targetIndex(pod);
        boolean volumeAdded = count(patched.path("spec").path("volumes"), VOLUME) == 1
                && count(original.path("spec").path("volumes"), VOLUME) == 0;
        String vehicle = record.get("vehicle").asText();
        assertThat(vehicle).isIn("file", "environment");
        assertThat(vehicle.equals("file")).as("vehicle is file iff volume %s was added", VOLUME).isEqualTo(volumeAdded);
        assertThat(vehicle.equals("file")).as("the vLLM family uses the file").isEqualTo(!runtime.equals("sglang"));
        if (vehicle.equals("file")) {
            JsonNode config = JsonTrees.parse(annotations.path(CLIENT_CONFIG).asText("null"));
            assertThat(config.isObject()).as("client-config is a JSON object").isTrue();
            assertThat(config.has("tenant_id")).as("tenant_id written iff tenantInjected").isEqualTo(tenant);
            if (tenant) {
                assertThat(config.get("tenant_id").asText()).isEqualTo(resolution.domain());
            }
            assertThat(config.path("master_server_address").asText()).isEqualTo(KvCacheCluster.ENDPOINT);
            assertThat(config.path("protocol").asText()).as("the matched transport").isEqualTo(resolution.protocol());
        } else {
            assertThat(annotations.has(CLIENT_CONFIG)).as("no client-config for the environment vehicle").isFalse();
            List<Map<?, ?>> written = writtenEnv(patch, target);
            boolean tenantWritten = written.stream().anyMatch(e -> "MOONCAKE_TENANT_ID".equals(e.get("name"))
                    && resolution.domain().equals(e.get("value")));
            assertThat(tenantWritten).as("MOONCAKE_TENANT_ID written iff tenantInjected").isEqualTo(tenant);
            assertThat(written).as("MOONCAKE_PROTOCOL is the matched transport")
                    .anyMatch(e -> "MOONCAKE_PROTOCOL".equals(e.get("name")) && resolution.protocol().equals(e.get("value")));
            assertThat(written).as("MOONCAKE_MASTER is the pool's endpoint")
                    .anyMatch(e -> "MOONCAKE_MASTER".equals(e.get("name")) && KvCacheCluster.ENDPOINT.equals(e.get("value")));
        }

        List<String> appended = appendedArgs(original, patched, target);
        Optional<String> dtype = resolution.binding().dtype().filter(d -> !d.isEmpty());
        if (cluster.dtypeOwned() && dtype.isPresent()) {
            int at = appended.indexOf("--kv-cache-dtype");
            assertThat(at).as("the owned dtype is appended").isNotNegative();
            assertThat(appended.get(at + 1)).isEqualTo(dtype.get());
        } else {
            assertThat(appended).as("no dtype is written when the Setting is off or the Binding has none")
                    .doesNotContain("--kv-cache-dtype");
        }

        boolean forwarded = record.get("launchArgsForwarded").asBoolean();
        if (forwarded) {
            assertThat(pod.annotation(KvCachePods.PREFIX + "launch-args-forwarded")).as("forwarding was declared")
                    .contains("true");
        }
        if (record.get("launchProgram").asText().isEmpty()) {
            assertThat(forwarded).as("an empty launchProgram only when forwarding admitted the launch").isTrue();
        }
    }

    // 5. ------------------------------------------------------------------------------------------------------------

    @Property
    void aRefusalCarriesNoPatchAndStartsWithItsCodeAndDecidingNeverModifiesThePod(
            @ForAll("pods") GeneratedPod pod, @ForAll("clusters") KvCacheCluster cluster) {
        String before = JsonTrees.text(pod.object());
        Decision decision = decide(cluster, pod);
        count(decision);
        Statistics.label("reason").collect(Outcomes.detail(decision));
        assertThat(JsonTrees.text(pod.object())).as("the received object is not modified by deciding").isEqualTo(before);
        switch (decision) {
            case Decision.Refuse r -> {
                assertThat(r.codes()).hasSize(1);
                assertThat(r.message()).as("a refusal message starts with its code").startsWith(r.codes().get(0).id() + ": ");
                assertThat(Outcomes.wire(r)).as("a refusal's response carries no patch")
                        .doesNotContain("\"patch\"").doesNotContain("patchType");
            }
            case Decision.Admit a -> {
                for (Warning w : a.warnings()) {
                    assertThat(w.message()).as("a warning starts with its code").startsWith(w.code().id() + ": ");
                }
            }
            case Decision.Skip s -> fail("the kvcache webhook never skips: %s", s);
        }
    }

    @Property
    void aRefusalMessageIsOneParagraphAndAWarningOneLine(@ForAll("pods") GeneratedPod pod,
                                                         @ForAll("clusters") KvCacheCluster cluster) {
        Decision decision = decide(cluster, pod);
        count(decision);
        switch (decision) {
            case Decision.Refuse r -> assertThat(Outcomes.hasLineBreak(r.message()))
                    .as("a refusal message is one paragraph, whatever the Pod's values: %s", r.message()).isFalse();
            case Decision.Admit a -> {
                for (Warning w : a.warnings()) {
                    assertThat(Outcomes.hasLineBreak(w.message())).as("a warning is one line: %s", w.message()).isFalse();
                }
            }
            case Decision.Skip s -> fail("the kvcache webhook never skips: %s", s);
        }
    }

    @Property
    void aClusterRefusalNamesWhatTheClusterReallyLacks(@ForAll("pods") GeneratedPod pod,
                                                       @ForAll("clusters") KvCacheCluster cluster) {
        Decision decision = decide(cluster, pod);
        count(decision);
        if (!(decision instanceof Decision.Refuse r)) {
            return;
        }
        String namespace = pod.effectiveNamespace();
        String name = pod.annotation(KvCachePods.PREFIX + "binding").orElse("");
        Optional<KvCacheCluster.Binding> binding = cluster.bindings().stream()
                .filter(b -> b.namespace().equals(namespace) && b.name().equals(name)).findFirst();
        Optional<KvCacheCluster.Pool> pool = binding.flatMap(KvCacheCluster.Binding::poolRef)
                .flatMap(p -> cluster.pools().stream().filter(x -> x.name().equals(p)).findFirst());
        String code = r.codes().get(0).id();
        Statistics.label("cluster refusal").collect(code);
        switch (code) {
            case "cluster-not-ready" -> assertThat(cluster.health()).as(code).isNotEqualTo(KvCacheCluster.ViewHealth.SYNCED);
            case "binding-not-found" -> assertThat(binding).as("%s: the model has no Binding %s/%s", code, namespace, name).isEmpty();
            case "binding-terminating" -> assertThat(binding).as(code).hasValueSatisfying(b -> assertThat(b.terminating()).isTrue());
            case "pool-not-found" -> assertThat(pool).as(code).isEmpty();
            case "ledger-not-ready" -> assertThat(pool.orElseThrow().ledger()
                    .filter(l -> l.status().equals("True") || (l.status().equals("False") && l.reason().equals("MultiTenancyDisabled"))))
                    .as(code).isEmpty();
            case "backend-not-found" -> assertThat(pool.orElseThrow().backends().isEmpty()
                    || cluster.backends().stream().noneMatch(b -> b.name().equals(pool.get().backends().get(0)))).as(code).isTrue();
            case "endpoint-not-published" -> assertThat(pool.orElseThrow().endpoint().filter(e -> !e.isEmpty())).as(code).isEmpty();
            case "transport-mixed", "transport-unsupported" -> assertThat(cluster.resolve(namespace, name,
                    expectedRuntime(pod).equals("vllm-ascend") ? Optional.of("ascend") : Optional.empty())).as(code).isEmpty();
            default -> {
                // a Pod-side refusal: the properties on the Pod's shape cover it
            }
        }
    }

    @Property
    void aPatchNeverMakesAValidPodInvalid(@ForAll("pods") GeneratedPod pod, @ForAll("clusters") KvCacheCluster cluster) {
        JsonNode original = JsonTrees.tree(pod.object());
        Decision decision = decide(cluster, pod);
        count(decision);
        List<PatchOp> patch = Outcomes.patch(decision);
        if (!patch.isEmpty()) {
            assertThat(PodValidity.problems(Patches.apply(patch, original)))
                    .as("what the API server's validation would reject after the patch, beyond what it rejects already")
                    .isSubsetOf(PodValidity.problems(original));
        }
    }

    /**
     * Found by {@link #aRefusalMessageIsOneParagraphAndAWarningOneLine}, kept as a fixed example: {@code binding-not-found}
     * and {@code cluster-not-ready} once put the binding annotation into the message as written, so a value with a
     * line break split the refusal over two lines.
     */
    @Example
    void aBindingWithALineBreakStillGetsOneParagraphRefusals() {
        GeneratedPod pod = fixed("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"chat-0","namespace":"team-a",
                 "labels":{"kvcache.gpustack.ai/inject":"true"},
                 "annotations":{"kvcache.gpustack.ai/binding":"chat\\nrest","kvcache.gpustack.ai/engine":"vLLM"}},
                 "spec":{"containers":[{"name":"server","image":"vllm/vllm-openai:v0.29.0","command":["vllm"],
                 "args":["serve","Qwen/Qwen3-8B"]}]}}""");
        SoftAssertions.assertSoftly(softly -> {
            for (KvCacheCluster.ViewHealth health : KvCacheCluster.ViewHealth.values()) {
                KvCacheCluster cluster = new KvCacheCluster(List.of(), List.of(), List.of(), true, health);
                Decision.Refuse refusal = (Decision.Refuse) decide(cluster, pod);
                softly.assertThat(refusal.reason()).isEqualTo(health == KvCacheCluster.ViewHealth.SYNCED
                        ? "binding-not-found" : "cluster-not-ready");
                softly.assertThat(Outcomes.hasLineBreak(refusal.message())).as("one paragraph: %s", refusal.message()).isFalse();
            }
        });
    }

    @SuppressWarnings("unchecked")
    static GeneratedPod fixed(String json) {
        Map<String, Object> object = (Map<String, Object>) JsonTrees.reparsed(JsonTrees.parse(json));
        return new GeneratedPod("team-a", object);
    }

    // 6. ------------------------------------------------------------------------------------------------------------

    @Property
    void decidingTheSameReviewTwiceGivesByteIdenticalAnswers(@ForAll("pods") GeneratedPod pod,
                                                             @ForAll("clusters") KvCacheCluster cluster) {
        Decision first = decide(cluster, pod);
        count(first);
        Decision second = decide(cluster, pod.copy());
        assertThat(Outcomes.wire(second)).as("the same Pod decided again").isEqualTo(Outcomes.wire(first));

        FakeClusterDirectory directory = cluster.directory();
        AdmissionHandler handler = AdmissionWiring.of(directory, directory, ENGINES,
                CacheBlendSettings.of("", false, "gpustack-system")).quietHandler();
        byte[] review = pod.review();
        AdmissionAnswer once = handler.handle(Webhook.KVCACHE_MUTATE, review);
        AdmissionAnswer twice = handler.handle(Webhook.KVCACHE_MUTATE, review);
        assertThat(twice.bodyText()).as("the same review through the HTTP adapter again").isEqualTo(once.bodyText());
        assertThat(once.status()).isEqualTo(200);
        assertThat(once.bodyText()).as("the adapter answers what the use case decided")
                .isEqualTo(new String(AdmissionResponseWriter.decision(GeneratedPod.REVIEW_UID, first), StandardCharsets.UTF_8));
    }

    // 7. ------------------------------------------------------------------------------------------------------------

    @Provide
    Arbitrary<GeneratedPod> podsNotOptedIn() {
        Arbitrary<String> value = Arbitraries.frequency(Tuple.of(20, (String) null), Tuple.of(10, "True"), Tuple.of(10, "TRUE"),
                Tuple.of(10, "yes"), Tuple.of(10, ""), Tuple.of(10, "true "), Tuple.of(10, " true"), Tuple.of(10, "false"),
                Tuple.of(10, "1"));
        return Combinators.combine(KvCachePods.pods(), value, Arbitraries.integers().between(0, 3))
                .as((pod, v, damage) -> notOptedIn(pod, v, damage));
    }

    @Property
    void aPodWithoutTheExactOptInLabelIsAdmittedUnchanged(@ForAll("podsNotOptedIn") GeneratedPod pod,
                                                          @ForAll("clusters") KvCacheCluster cluster) {
        Decision decision = decide(cluster, pod);
        assertThat(decision).as("no label exactly \"true\": no patch, no warning, whatever else the Pod holds")
                .isEqualTo(Decision.Admit.unchanged());
    }

    // ---- helpers ----------------------------------------------------------------------------------------------------

    /** {@code pod} with the opt-in label set to {@code value} (or removed) and, when {@code damage} is 1, a malformed field. */
    @SuppressWarnings("unchecked")
    private static GeneratedPod notOptedIn(GeneratedPod pod, String value, int damage) {
        Map<String, Object> object = pod.copy().object();
        Map<String, Object> metadata = (Map<String, Object>) object.computeIfAbsent("metadata", k -> new LinkedHashMap<>());
        Object labels = metadata.get("labels");
        Map<String, Object> l = labels instanceof Map<?, ?> m ? (Map<String, Object>) m : new LinkedHashMap<>();
        if (value == null) {
            l.remove(KvCachePods.LABEL);
        } else {
            l.put(KvCachePods.LABEL, value);
        }
        metadata.put("labels", l);
        if (damage == 1 && object.get("spec") instanceof Map<?, ?> spec) {
            ((Map<String, Object>) spec).put("containers", "not a list");
        }
        return new GeneratedPod(pod.requestNamespace(), object);
    }

    /** The container the kvcache contract configures: the annotation's, else the only one; -1 when there is none. */
    static int targetIndex(GeneratedPod pod) {
        List<String> names = pod.containerNames();
        Optional<String> named = pod.annotation(KvCachePods.PREFIX + "container").filter(s -> !s.isEmpty());
        if (named.isPresent()) {
            return names.indexOf(named.get());
        }
        return names.size() == 1 ? 0 : -1;
    }

    /** The runtime the annotations declare (D1): the engine in any case, vllm-ascend with a manufacturer. */
    private static String expectedRuntime(GeneratedPod pod) {
        String engine = pod.annotation(KvCachePods.PREFIX + "engine").orElseThrow().toLowerCase(Locale.ROOT);
        if (engine.equals("sglang")) {
            return "sglang";
        }
        return pod.annotation(KvCachePods.PREFIX + "manufacturer").isPresent() ? "vllm-ascend" : "vllm";
    }

    /** The env entries the patch writes into container {@code target} (appended, created or replaced). */
    private static List<Map<?, ?>> writtenEnv(List<PatchOp> patch, int target) {
        String env = "/spec/containers/" + target + "/env";
        List<Map<?, ?>> out = new ArrayList<>();
        for (PatchOp op : patch) {
            if (!op.path().equals(env) && !op.path().startsWith(env + "/")) {
                continue;
            }
            if (op.value() instanceof Map<?, ?> m) {
                out.add(m);
            } else if (op.value() instanceof List<?> l) {
                l.stream().filter(Map.class::isInstance).map(e -> (Map<?, ?>) e).forEach(out::add);
            }
        }
        return out;
    }

    private static List<String> appendedArgs(JsonNode original, JsonNode patched, int target) {
        int before = original.path("spec").path("containers").get(target).path("args").size();
        List<String> args = new ArrayList<>();
        JsonNode after = patched.path("spec").path("containers").get(target).path("args");
        for (int i = before; i < after.size(); i++) {
            args.add(after.get(i).asText());
        }
        return args;
    }

    private static int count(JsonNode volumes, String name) {
        int n = 0;
        for (JsonNode v : JsonTrees.elements(volumes)) {
            if (name.equals(v.path("name").asText(null))) {
                n++;
            }
        }
        return n;
    }

    private static List<String> fieldNames(JsonNode object) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }
}
