package io.kvcacheinjector.app.properties;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import static io.kvcacheinjector.app.properties.PodAssertions.assertPrefix;
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
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.ports.service.CacheBlendInjection;
import io.kvcacheinjector.ports.service.KvCacheFreeze;
import io.kvcacheinjector.ports.service.KvCacheInjection;
import io.kvcacheinjector.ports.testing.FakeClusterDirectory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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

/**
 * The CacheBlend mutate use case ({@code /cacheblend/mutate}), wired as the server wires it (the real vLLM grammar),
 * over generated Pods, engines, ConfigMaps and installs. Each property names one guarantee of
 * docs/explanation/reliability.md.
 */
@AddLifecycleHook(PropertyTries.class)
class CacheBlendInjectionProperties {

    @Provide
    Arbitrary<GeneratedPod> pods() {
        return CacheBlendPods.pods();
    }

    @Provide
    Arbitrary<CacheBlendCluster> clusters() {
        return CacheBlendCluster.clusters();
    }

    private static CacheBlendInjection useCase(CacheBlendCluster cluster) {
        return new CacheBlendInjection(cluster.directory(), BuiltInEngines.engines(), cluster.settings());
    }

    private static Decision decide(CacheBlendCluster cluster, GeneratedPod pod) {
        return useCase(cluster).mutate(pod.requestNamespace(), new ReceivedPod(pod.object()));
    }

    private static void count(Decision decision) {
        Statistics.label("outcome").collect(Outcomes.kind(decision));
        Statistics.label("outcome").coverage(c -> {
            c.check(Outcomes.PATCHED).percentage(p -> p >= 10);
            c.check(Outcomes.SKIPPED).percentage(p -> p >= 10);
        });
    }

    // 1. ------------------------------------------------------------------------------------------------------------

    @Property
    void everyInjectionAndSkipPatchAppliesCleanlyToThePodAsReceived(@ForAll("pods") GeneratedPod pod,
                                                                     @ForAll("clusters") CacheBlendCluster cluster) {
        JsonNode original = JsonTrees.tree(pod.object());
        Decision decision = decide(cluster, pod);
        count(decision);
        List<PatchOp> patch = Outcomes.patch(decision);
        if (!patch.isEmpty()) {
            JsonNode patched = Patches.apply(patch, original);
            if (decision instanceof Decision.Admit) {
                // (a skip may rewrite a stale skip-reason with the same value)
                assertThat(patched).as("an injection changes the Pod").isNotEqualTo(original);
            }
        }
    }

    // 2. ------------------------------------------------------------------------------------------------------------

    @Property
    void aPatchChangesOnlyWhatCacheBlendWritesAndNeverCommandOrAnotherContainer(
            @ForAll("pods") GeneratedPod pod, @ForAll("clusters") CacheBlendCluster cluster) {
        JsonNode original = JsonTrees.tree(pod.object());
        Decision decision = decide(cluster, pod);
        count(decision);
        List<PatchOp> patch = Outcomes.patch(decision);
        if (patch.isEmpty()) {
            return;
        }
        JsonNode patched = Patches.apply(patch, original);
        List<Pattern> allowed;
        if (decision instanceof Decision.Skip) {
            allowed = List.of(Pattern.compile("/metadata/annotations"),
                    Pattern.compile("/metadata/annotations/lmcache\\.ai~1cacheblend-skip-reason"));
        } else {
            int target = targetIndex(pod, cluster);
            assertThat(target).as("an injection has the target the selection rules name").isNotNegative();
            allowed = List.of(
                    Pattern.compile("/spec/hostIPC"),
                    Pattern.compile("/spec/volumes(/.*)?"),
                    Pattern.compile("/spec/initContainers(/.*)?"),
                    Pattern.compile("/spec/imagePullSecrets(/.*)?"),
                    Pattern.compile("/spec/containers/" + target + "/(args|env|volumeMounts)(/.*)?"),
                    Pattern.compile("/metadata/annotations"),
                    Pattern.compile("/metadata/annotations/lmcache\\.ai~1(cacheblend-injected|cacheblend-skip-reason)"));
            PodAssertions.assertOnlyTargetChanges(original, patched, target);
            assertPrefix("the Pod's own init containers are kept, in order, and run first",
                    original.path("spec").path("initContainers"), patched.path("spec").path("initContainers"));
            assertPrefix("the Pod's own pull secrets are kept, in order", original.path("spec").path("imagePullSecrets"),
                    patched.path("spec").path("imagePullSecrets"));
        }
        for (String path : Patches.opPaths(patch)) {
            assertThat(allowed).as("patch operation path %s is one CacheBlend writes", path).anyMatch(p -> p.matcher(path).matches());
        }
        for (String path : Patches.changedPaths(original, patched)) {
            assertThat(allowed).as("changed path %s is one CacheBlend writes", path).anyMatch(p -> p.matcher(path).matches());
        }
        assertThat(patched.path("metadata").path("labels")).as("labels never change")
                .isEqualTo(original.path("metadata").path("labels"));
    }

    // 3. ------------------------------------------------------------------------------------------------------------

    @Property
    void aPatchedPodRoundTripsThroughTheFabric8PodModel(@ForAll("pods") GeneratedPod pod,
                                                         @ForAll("clusters") CacheBlendCluster cluster) {
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
    void theStampAndTheInjectionMatchTheEngineAndItsConnection(@ForAll("pods") GeneratedPod pod,
                                                               @ForAll("clusters") CacheBlendCluster cluster) {
        JsonNode original = JsonTrees.tree(pod.object());
        Decision decision = decide(cluster, pod);
        count(decision);
        Statistics.label("reason").collect(Outcomes.detail(decision));
        switch (decision) {
            case Decision.Skip s -> {
                JsonNode annotations = Patches.apply(s.patch(), original).path("metadata").path("annotations");
                assertThat(annotations.path(CacheBlendPods.SKIP_REASON).asText()).as("the skip-reason annotation is the code")
                        .isEqualTo(s.code().id());
                assertThat(annotations.path(CacheBlendPods.INJECTED)).as("a skipped Pod is not stamped injected")
                        .isEqualTo(original.path("metadata").path("annotations").path(CacheBlendPods.INJECTED));
                assertAgreesWithCluster(s.code(), pod, cluster);
            }
            case Decision.Refuse r -> assertAgreesWithCluster(r.codes().get(0), pod, cluster);
            case Decision.Admit a -> {
                if (a.patch().isEmpty()) {
                    return;
                }
                JsonNode patched = Patches.apply(a.patch(), original);
                JsonNode annotations = patched.path("metadata").path("annotations");
                assertThat(annotations.path(CacheBlendPods.INJECTED).asText()).as("the Pod is stamped injected").isEqualTo("true");
                assertThat(annotations.has(CacheBlendPods.SKIP_REASON)).as("an injected Pod carries no skip reason").isFalse();

                EngineRef ref = EngineRef.of(pod).orElseThrow();
                CacheBlendCluster.Engine engine = cluster.engine(ref.namespace(), ref.name()).orElse(null);
                if (engine == null) {
                    fail("injected although engine %s/%s does not exist: %s", ref.namespace(), ref.name(), cluster);
                    return;
                }
                assertThat(cluster.health()).as("injected only from a synced, readable view").isEqualTo(KvCacheCluster.ViewHealth.SYNCED);
                assertThat(ref.namespace().equals(pod.requestNamespace()) || cluster.allowedNamespaces().contains(ref.namespace()))
                        .as("an engine in another namespace only when allowed").isTrue();
                String key = switch (pod.annotation(CacheBlendPods.PD_ROLE).orElse("")) {
                    case "prefiller" -> CacheBlendCluster.PREFILLER_KEY;
                    case "decoder" -> CacheBlendCluster.DECODER_KEY;
                    default -> CacheBlendCluster.BASE_KEY;
                };
                String connection = cluster.connection(ref.namespace(), ref.name()).map(c -> c.data().get(key)).orElse(null);
                assertThat(connection).as("the selected connection key exists").isNotNull();

                int target = targetIndex(pod, cluster);
                JsonNode container = patched.path("spec").path("containers").get(target);
                List<String> args = new ArrayList<>();
                JsonTrees.elements(container.path("args")).forEach(n -> args.add(n.asText()));
                int at = args.lastIndexOf("--kv-transfer-config");
                assertThat(at).as("--kv-transfer-config is appended").isGreaterThanOrEqualTo(JsonTrees.elements(
                        original.path("spec").path("containers").get(target).path("args")).size());
                assertThat(args.get(at + 1)).as("the connection is passed through verbatim").isEqualTo(connection);

                List<JsonNode> stage = JsonTrees.elements(patched.path("spec").path("initContainers")).stream()
                        .filter(c -> c.path("name").asText().equals("cb-plugin-stage")).toList();
                long own = pod.initContainerNames().stream().filter("cb-plugin-stage"::equals).count();
                if (own == 0) {
                    assertThat(stage).as("one staging init container is added").hasSize(1);
                    assertThat(stage.get(0).path("image").asText()).as("the payload image").isEqualTo(engine.image());
                } else {
                    assertThat(stage).as("an existing staging init container is left as it is").hasSize((int) own);
                }
                assertThat(JsonTrees.elements(container.path("volumeMounts"))).as("the staged plugin is mounted where PYTHONPATH looks")
                        .anyMatch(m -> m.path("name").asText().equals("cb-plugin")
                                && m.path("mountPath").asText().replaceAll("/+$", "").equals("/cb-plugin"));
                assertThat(JsonTrees.elements(patched.path("spec").path("volumes"))).as("the plugin volume exists")
                        .anyMatch(v -> v.path("name").asText().equals("cb-plugin"));
                List<JsonNode> ownMounts = JsonTrees.elements(original.path("spec").path("containers").get(target).path("volumeMounts"));
                for (JsonNode m : JsonTrees.elements(container.path("volumeMounts"))) {
                    if (!ownMounts.contains(m) && m.path("mountPath").asText().replaceAll("/+$", "").equals("/dev/shm")) {
                        assertThat(JsonTrees.elements(patched.path("spec").path("volumes")))
                                .as("a /dev/shm the webhook mounts is the host's (never an emptyDir, docs/reference/cacheblend-injection.md)")
                                .anyMatch(v -> v.path("name").equals(m.path("name"))
                                        && v.path("hostPath").path("path").asText().equals("/dev/shm"));
                    }
                }
                List<JsonNode> pythonPath = JsonTrees.elements(container.path("env")).stream()
                        .filter(e -> e.path("name").asText().equals("PYTHONPATH")).toList();
                assertThat(pythonPath).as("PYTHONPATH is set on the target").isNotEmpty();
                assertThat(pythonPath.get(pythonPath.size() - 1).path("value").asText()).as("/cb-plugin comes first")
                        .startsWith("/cb-plugin");
                if (engine.hostIpc().orElse(true)) {
                    assertThat(patched.path("spec").path("hostIPC").asBoolean()).as("hostIPC for an engine that shares IPC").isTrue();
                }
                assertThat(Outcomes.wire(decision)).as("VLLM_PLUGINS is never written").doesNotContain("\"VLLM_PLUGINS\",\"value\"");
            }
        }
    }

    /** A skip or refusal caused by the cluster names something the cluster really lacks (or the Pod really has). */
    private static void assertAgreesWithCluster(ReasonCode code, GeneratedPod pod, CacheBlendCluster cluster) {
        Optional<EngineRef> ref = EngineRef.of(pod);
        switch (code.id()) {
            case "lookup-failed" -> assertThat(cluster.health()).isNotEqualTo(KvCacheCluster.ViewHealth.SYNCED);
            case "engine-not-found" -> assertThat(cluster.engine(ref.get().namespace(), ref.get().name())).isEmpty();
            case "connection-missing" -> assertThat(cluster.connection(ref.get().namespace(), ref.get().name())).isEmpty();
            case "payload-image-unset" -> assertThat(cluster.engine(ref.get().namespace(), ref.get().name()).orElseThrow()
                    .repository().filter(r -> !r.isBlank())).isEmpty();
            case "engine-ref-forbidden" -> assertThat(cluster.allowedNamespaces()).doesNotContain(ref.get().namespace());
            case "plugin-name-taken" -> {
                int target = targetIndex(pod, cluster);
                JsonNode mounts = JsonTrees.tree(pod.object()).path("spec").path("containers").path(target).path("volumeMounts");
                assertThat(pod.containerNames().contains("cb-plugin-stage") || JsonTrees.elements(mounts).stream()
                        .anyMatch(m -> !m.path("name").asText().equals("cb-plugin")
                                && m.path("mountPath").asText().replaceAll("/+$", "").equals("/cb-plugin")))
                        .as("%s: an app container is named cb-plugin-stage, or the target mounts another volume at /cb-plugin", code.id())
                        .isTrue();
            }
            default -> {
            }
        }
    }

    // 5. ------------------------------------------------------------------------------------------------------------

    @Property
    void aRefusalCarriesNoPatchAndStartsWithItsCodeAndDecidingNeverModifiesThePod(
            @ForAll("pods") GeneratedPod pod, @ForAll("clusters") CacheBlendCluster cluster) {
        String before = JsonTrees.text(pod.object());
        Decision decision = decide(cluster, pod);
        count(decision);
        assertThat(JsonTrees.text(pod.object())).as("the received object is not modified by deciding").isEqualTo(before);
        switch (decision) {
            case Decision.Refuse r -> {
                assertThat(r.message()).as("a refusal message starts with its code").startsWith(r.codes().get(0).id() + ": ");
                assertThat(cluster.failClosed() || r.codes().get(0) == ReasonCode.CONTRACTS_CONFLICT
                        || r.codes().get(0) == ReasonCode.POD_UNREADABLE).as("only the fail-closed switch turns a skip into a refusal").isTrue();
                assertThat(Outcomes.wire(r)).as("a refusal's response carries no patch")
                        .doesNotContain("\"patch\"").doesNotContain("patchType");
            }
            case Decision.Skip s -> {
                assertThat(cluster.failClosed()).as("no skip under the fail-closed switch").isFalse();
                assertThat(s.message()).as("a skip warning starts with its code").startsWith(s.code().id() + ": ");
            }
            case Decision.Admit a -> {
                for (Warning w : a.warnings()) {
                    assertThat(w.message()).as("a warning starts with its code").startsWith(w.code().id() + ": ");
                }
            }
        }
    }

    @Property
    void aRefusalOrSkipMessageIsOneParagraphAndAWarningOneLine(@ForAll("pods") GeneratedPod pod,
                                                              @ForAll("clusters") CacheBlendCluster cluster) {
        Decision decision = decide(cluster, pod);
        count(decision);
        switch (decision) {
            case Decision.Refuse r -> assertThat(Outcomes.hasLineBreak(r.message()))
                    .as("a refusal message is one paragraph, whatever the Pod's values: %s", r.message()).isFalse();
            case Decision.Skip s -> assertThat(Outcomes.hasLineBreak(s.message()))
                    .as("a skip warning is one line, whatever the Pod's values: %s", s.message()).isFalse();
            case Decision.Admit a -> {
                for (Warning w : a.warnings()) {
                    assertThat(Outcomes.hasLineBreak(w.message())).as("a warning is one line: %s", w.message()).isFalse();
                }
            }
        }
    }

    @Property
    void aPatchNeverMakesAValidPodInvalid(@ForAll("pods") GeneratedPod pod, @ForAll("clusters") CacheBlendCluster cluster) {
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
     * Found by {@link #aPatchNeverMakesAValidPodInvalid}, kept as a fixed example: an app container named
     * {@code cb-plugin-stage} once got an init container of the same name (M2 looked for the name among init
     * containers only), and the API server rejected the patched Pod ("Duplicate value"). Now a skip,
     * {@code plugin-name-taken}.
     */
    @Example
    void anAppContainerNamedLikeTheStagingInitContainerIsSkippedNotDuplicated() {
        assertSkippedAndStillValid("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"chat-0","namespace":"team-a",
                 "labels":{"lmcache.ai/cacheblend-inject":"true"},"annotations":{"lmcache.ai/cacheblend-engine":"cb"}},
                 "spec":{"containers":[{"name":"cb-plugin-stage","image":"lmcache/vllm-openai:v0.5.3",
                 "args":["Qwen/Qwen3-8B"]}]}}""");
    }

    /**
     * Found by {@link #aPatchNeverMakesAValidPodInvalid}, kept as a fixed example: a target that already mounted
     * another volume at {@code /cb-plugin} once got the {@code cb-plugin} mount at the same path (M3 looked for the
     * mount's name only), and the API server rejected the patched Pod ("must be unique"). Now a skip,
     * {@code plugin-name-taken}.
     */
    @Example
    void aTargetMountingAnotherVolumeAtThePluginPathIsSkippedNotDuplicated() {
        assertSkippedAndStillValid("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"chat-0","namespace":"team-a",
                 "labels":{"lmcache.ai/cacheblend-inject":"true"},"annotations":{"lmcache.ai/cacheblend-engine":"cb"}},
                 "spec":{"containers":[{"name":"server","image":"lmcache/vllm-openai:v0.5.3","args":["Qwen/Qwen3-8B"],
                 "volumeMounts":[{"name":"cache","mountPath":"/cb-plugin"}]}],
                 "volumes":[{"name":"cache","emptyDir":{}}]}}""");
    }

    /**
     * Found by {@link #theStampAndTheInjectionMatchTheEngineAndItsConnection}: a target that mounts the volume named
     * {@code cb-plugin} somewhere else gets no mount at {@code /cb-plugin} (M3 looks for the mount's name only), yet
     * {@code PYTHONPATH} and the connector module point there, so vLLM cannot import the plugin.
     */
    @Example
    void aTargetMountingThePluginVolumeElsewhereStillSeesThePluginAtItsPath() {
        GeneratedPod pod = KvCacheInjectionProperties.fixed("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"chat-0","namespace":"team-a",
                 "labels":{"lmcache.ai/cacheblend-inject":"true"},"annotations":{"lmcache.ai/cacheblend-engine":"cb"}},
                 "spec":{"containers":[{"name":"server","image":"lmcache/vllm-openai:v0.5.3","args":["Qwen/Qwen3-8B"],
                 "volumeMounts":[{"name":"cb-plugin","mountPath":"/cache"}]}]}}""");
        JsonNode original = JsonTrees.tree(pod.object());
        Decision decision = decide(clusterWithEngineCb(Optional.empty()), pod);
        if (Outcomes.kind(decision).equals(Outcomes.PATCHED)) {
            JsonNode mounts = Patches.apply(Outcomes.patch(decision), original).path("spec").path("containers").path(0)
                    .path("volumeMounts");
            assertThat(JsonTrees.elements(mounts)).as("an injected target has the plugin at /cb-plugin")
                    .anyMatch(m -> m.path("name").asText().equals("cb-plugin") && m.path("mountPath").asText().equals("/cb-plugin"));
        } else {
            assertThat(Outcomes.kind(decision)).as("or the Pod is skipped").isEqualTo(Outcomes.SKIPPED);
        }
    }

    /**
     * Found by {@link #theStampAndTheInjectionMatchTheEngineAndItsConnection}: with an engine of {@code hostIPC: false},
     * a Pod that already has a volume named {@code lmcache-dev-shm} (here an emptyDir) and no mount at {@code /dev/shm}
     * gets that volume mounted at {@code /dev/shm} — an emptyDir there hides the host's tmpfs and breaks CUDA IPC
     * (docs/reference/cacheblend-injection.md, which also says the wiring is skipped when a volume of that name exists).
     */
    @Example
    void aPodVolumeNamedLikeTheDevShmVolumeIsNeverMountedAtDevShm() {
        GeneratedPod pod = KvCacheInjectionProperties.fixed("""
                {"apiVersion":"v1","kind":"Pod","metadata":{"name":"chat-0","namespace":"team-a",
                 "labels":{"lmcache.ai/cacheblend-inject":"true"},"annotations":{"lmcache.ai/cacheblend-engine":"cb"}},
                 "spec":{"containers":[{"name":"server","image":"lmcache/vllm-openai:v0.5.3","args":["Qwen/Qwen3-8B"]}],
                 "volumes":[{"name":"lmcache-dev-shm","emptyDir":{}}]}}""");
        JsonNode original = JsonTrees.tree(pod.object());
        Decision decision = decide(clusterWithEngineCb(Optional.of(false)), pod);
        JsonNode patched = Patches.apply(Outcomes.patch(decision), original);
        List<JsonNode> volumes = JsonTrees.elements(patched.path("spec").path("volumes"));
        assertThat(JsonTrees.elements(patched.path("spec").path("containers").path(0).path("volumeMounts")))
                .as("whatever the webhook mounts at /dev/shm is the host's /dev/shm, never the Pod's emptyDir")
                .filteredOn(m -> m.path("mountPath").asText().equals("/dev/shm"))
                .allMatch(m -> volumes.stream().anyMatch(v -> v.path("name").equals(m.path("name"))
                        && v.path("hostPath").path("path").asText().equals("/dev/shm")));
    }

    /** Engine {@code team-a/cb} with a payload image and a valid connection, {@code hostIPC} as given. */
    private static CacheBlendCluster clusterWithEngineCb(Optional<Boolean> hostIpc) {
        return new CacheBlendCluster(
                List.of(new CacheBlendCluster.Engine("team-a", "cb", Optional.of("tensormesh/cacheblend-plugin"),
                        Optional.of("v0.5.3"), Optional.empty(), List.of(), Optional.empty(), Optional.empty(),
                        hostIpc, Optional.empty())),
                List.of(new CacheBlendCluster.ConnectionMap("team-a", "cb", Map.of(CacheBlendCluster.BASE_KEY,
                        CacheBlendCluster.connectionJson("cb", "team-a", "kv_both")))),
                java.util.Set.of(), false, KvCacheCluster.ViewHealth.SYNCED);
    }

    private static void assertSkippedAndStillValid(String podJson) {
        GeneratedPod pod = KvCacheInjectionProperties.fixed(podJson);
        CacheBlendCluster cluster = clusterWithEngineCb(Optional.empty());
        JsonNode original = JsonTrees.tree(pod.object());
        Decision decision = decide(cluster, pod);
        assertThat(Outcomes.detail(decision)).isEqualTo("skip plugin-name-taken");
        assertThat(((Decision.Skip) decision).message()).as("the warning names the taken name")
                .startsWith("plugin-name-taken: ").contains("cb-plugin");
        assertThat(PodValidity.problems(Patches.apply(Outcomes.patch(decision), original)))
                .as("what the API server's validation would reject after the patch").isEmpty();
    }

    // 6. ------------------------------------------------------------------------------------------------------------

    @Property
    void decidingTheSameReviewTwiceGivesByteIdenticalAnswers(@ForAll("pods") GeneratedPod pod,
                                                             @ForAll("clusters") CacheBlendCluster cluster) {
        Decision first = decide(cluster, pod);
        count(first);
        Decision second = decide(cluster, pod.copy());
        assertThat(Outcomes.wire(second)).as("the same Pod decided again").isEqualTo(Outcomes.wire(first));

        FakeClusterDirectory directory = cluster.directory();
        AdmissionHandler handler = AdmissionWiring.of(directory, directory, BuiltInEngines.engines(), cluster.settings())
                .quietHandler();
        byte[] review = pod.review();
        AdmissionAnswer once = handler.handle(Webhook.CACHEBLEND_MUTATE, review);
        AdmissionAnswer twice = handler.handle(Webhook.CACHEBLEND_MUTATE, review);
        assertThat(twice.bodyText()).as("the same review through the HTTP adapter again").isEqualTo(once.bodyText());
        assertThat(once.status()).isEqualTo(200);
        assertThat(once.bodyText()).as("the adapter answers what the use case decided").isEqualTo(
                new String(AdmissionResponseWriter.decision(GeneratedPod.REVIEW_UID, first), StandardCharsets.UTF_8));
    }

    // 7. ------------------------------------------------------------------------------------------------------------

    @Provide
    Arbitrary<GeneratedPod> podsNotOptedInOrExcluded() {
        Arbitrary<String> value = Arbitraries.frequency(Tuple.of(20, (String) null), Tuple.of(10, "True"), Tuple.of(10, "yes"),
                Tuple.of(10, ""), Tuple.of(10, " true"), Tuple.of(10, "false"), Tuple.of(30, "true"));
        Arbitrary<String> namespace = Arbitraries.of("kube-system", "kube-public", CacheBlendCluster.WEBHOOK_NAMESPACE);
        return Combinators.combine(CacheBlendPods.pods(), value, namespace).as((pod, v, ns) -> {
            Map<String, Object> object = pod.copy().object();
            @SuppressWarnings("unchecked")
            Map<String, Object> metadata = (Map<String, Object>) object.computeIfAbsent("metadata", k -> new java.util.LinkedHashMap<>());
            Map<String, Object> labels = new java.util.LinkedHashMap<>();
            if (metadata.get("labels") instanceof Map<?, ?> l) {
                l.forEach((k, x) -> labels.put((String) k, x));
            }
            labels.remove(KvCachePods.LABEL);
            if (v == null) {
                labels.remove(CacheBlendPods.LABEL);
            } else {
                labels.put(CacheBlendPods.LABEL, v);
            }
            metadata.put("labels", labels);
            // an exactly "true" label is paired with an excluded namespace; any other value with the Pod's own
            String requestNamespace = "true".equals(v) ? ns : pod.requestNamespace();
            if (metadata.containsKey("namespace")) {
                metadata.put("namespace", requestNamespace);
            }
            return new GeneratedPod(requestNamespace, object);
        });
    }

    @Property
    void aPodNotOptedInOrInAnExcludedNamespaceIsAdmittedUnchanged(@ForAll("podsNotOptedInOrExcluded") GeneratedPod pod,
                                                                 @ForAll("clusters") CacheBlendCluster cluster) {
        assertThat(decide(cluster, pod)).as("no label exactly \"true\", or an excluded namespace: no patch, no warning")
                .isEqualTo(Decision.Admit.unchanged());
    }

    // ---- helpers ----------------------------------------------------------------------------------------------------

    /** The engine reference as docs/reference/cacheblend-injection.md reads it: trimmed, split at the first "/", the Pod's namespace by default. */
    record EngineRef(String namespace, String name) {
        static Optional<EngineRef> of(GeneratedPod pod) {
            Optional<String> value = pod.annotation(CacheBlendPods.ENGINE).map(String::trim).filter(s -> !s.isEmpty());
            if (value.isEmpty()) {
                return Optional.empty();
            }
            int slash = value.get().indexOf('/');
            String ns = slash < 0 ? "" : value.get().substring(0, slash).trim();
            String name = slash < 0 ? value.get() : value.get().substring(slash + 1).trim();
            return Optional.of(new EngineRef(ns.isEmpty() ? pod.requestNamespace() : ns, name));
        }
    }

    /** The target by docs/reference/cacheblend-injection.md's rules: the annotation's container, else the engine's, else the only one; -1 if none. */
    static int targetIndex(GeneratedPod pod, CacheBlendCluster cluster) {
        List<String> names = pod.containerNames();
        Optional<String> named = pod.annotation(CacheBlendPods.CONTAINER).filter(s -> !s.isBlank());
        if (named.isEmpty()) {
            named = EngineRef.of(pod).flatMap(r -> cluster.engine(r.namespace(), r.name()))
                    .flatMap(CacheBlendCluster.Engine::targetContainer).filter(s -> !s.isBlank());
        }
        if (named.isPresent()) {
            return names.indexOf(named.get());
        }
        return names.size() == 1 ? 0 : -1;
    }
}
