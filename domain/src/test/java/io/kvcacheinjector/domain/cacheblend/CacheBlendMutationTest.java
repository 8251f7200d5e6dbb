package io.kvcacheinjector.domain.cacheblend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.pod.Pod;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The patch of a full injection and of a skip, op by op, against the Pod as received. */
class CacheBlendMutationTest {

    private static CacheBlendMutation.Injection inject(Pod pod, CacheBlendEngine engine) {
        return CacheBlendMutation.inject(pod, pod.containers().get(0), engine, Fixtures.connection(), Fixtures.VLLM_LIKE);
    }

    private static List<String> paths(CacheBlendMutation.Injection i) {
        return i.patch().stream().map(PatchOp::path).toList();
    }

    private static Object valueAt(CacheBlendMutation.Injection i, String path) {
        return i.patch().stream().filter(o -> o.path().equals(path)).findFirst().orElseThrow().value();
    }

    private static final String MINIMAL = "{\"metadata\":{\"annotations\":{\"lmcache.ai/cacheblend-engine\":\"cb\"}},"
            + "\"spec\":{\"containers\":[{\"name\":\"vllm\",\"args\":[\"m\"]}]}}";

    @Test
    void aMinimalPodGetsEveryPieceWithItsParentsCreated() {
        CacheBlendMutation.Injection i = inject(Fixtures.pod(MINIMAL), Fixtures.engine());
        assertThat(paths(i)).containsExactly("/spec/hostIPC", "/spec/volumes", "/spec/initContainers",
                "/spec/containers/0/volumeMounts", "/spec/containers/0/env", "/spec/containers/0/args/-",
                "/spec/containers/0/args/-", "/spec/containers/0/args/-", "/spec/containers/0/args/-",
                "/spec/containers/0/args/-", "/spec/containers/0/args/-", "/spec/containers/0/args/-",
                "/spec/containers/0/args/-", "/spec/containers/0/args/-", "/spec/containers/0/args/-",
                "/spec/containers/0/args/-", "/spec/imagePullSecrets", "/metadata/annotations/lmcache.ai~1cacheblend-injected");
        assertThat(valueAt(i, "/spec/initContainers")).isEqualTo(List.of(Map.of(
                "name", "cb-plugin-stage",
                "image", "tensormesh/cacheblend-plugin:v0.5.3",
                "imagePullPolicy", "IfNotPresent",
                "env", List.of(Map.of("name", "SHARED_DIR", "value", "/cb-plugin")),
                "volumeMounts", List.of(Map.of("name", "cb-plugin", "mountPath", "/cb-plugin")))));
        assertThat(valueAt(i, "/spec/containers/0/volumeMounts"))
                .isEqualTo(List.of(Map.of("name", "cb-plugin", "mountPath", "/cb-plugin", "readOnly", true)));
        assertThat(valueAt(i, "/spec/containers/0/env")).isEqualTo(List.of(Map.of("name", "PYTHONPATH", "value", "/cb-plugin")));
        assertThat(valueAt(i, "/spec/imagePullSecrets")).isEqualTo(List.of(Map.of("name", "cacheblend-plugin-pull")));
        assertThat(i.warnings()).isEmpty();
    }

    @Test
    void anEngineWithHostIpcFalseGetsTheHostsDevShmThroughAHostPathVolume() {
        CacheBlendMutation.Injection i = inject(Fixtures.pod(MINIMAL), Fixtures.engine(Optional.of(false), "eager", false, List.of()));
        assertThat(paths(i)).doesNotContain("/spec/hostIPC", "/spec/imagePullSecrets");
        assertThat(valueAt(i, "/spec/volumes")).isEqualTo(List.of(
                Map.of("name", "lmcache-dev-shm", "hostPath", Map.of("path", "/dev/shm", "type", "Directory")),
                Map.of("name", "cb-plugin", "emptyDir", Map.of())));
        assertThat(valueAt(i, "/spec/containers/0/volumeMounts")).isEqualTo(List.of(
                Map.of("name", "lmcache-dev-shm", "mountPath", "/dev/shm"),
                Map.of("name", "cb-plugin", "mountPath", "/cb-plugin", "readOnly", true)));
    }

    @Test
    void anEngineWithHostIpcTrueSetsHostIpcAndAPodAlreadySharingItGetsNoIpcWiring() {
        assertThat(paths(inject(Fixtures.pod(MINIMAL), Fixtures.engine(Optional.of(true), "eager", false, List.of()))))
                .contains("/spec/hostIPC");
        Pod shared = Fixtures.pod(MINIMAL.replace("\"spec\":{", "\"spec\":{\"hostIPC\":true,"));
        CacheBlendMutation.Injection i = inject(shared, Fixtures.engine(Optional.of(false), "eager", false, List.of()));
        assertThat(paths(i)).doesNotContain("/spec/hostIPC");
        assertThat(valueAt(i, "/spec/volumes")).isEqualTo(List.of(Map.of("name", "cb-plugin", "emptyDir", Map.of())));
    }

    @Test
    void existingListsGetAppendedEntriesAndSameNamedEntriesAreKept() {
        Pod pod = Fixtures.pod("{\"metadata\":{\"annotations\":{}},\"spec\":{"
                + "\"volumes\":[{\"name\":\"cb-plugin\",\"emptyDir\":{}}],"
                + "\"initContainers\":[{\"name\":\"cb-plugin-stage\",\"image\":\"mine\"}],"
                + "\"imagePullSecrets\":[{\"name\":\"cacheblend-plugin-pull\"},{\"name\":\"other\"}],"
                + "\"containers\":[{\"name\":\"vllm\",\"volumeMounts\":[{\"name\":\"m\",\"mountPath\":\"/m\"}],"
                + "\"env\":[{\"name\":\"A\",\"value\":\"1\"}],\"args\":[\"m\"]}]}}");
        CacheBlendMutation.Injection i = inject(pod, Fixtures.engine(Optional.empty(), "eager", false,
                List.of("cacheblend-plugin-pull", "tm-pull", "tm-pull")));
        assertThat(paths(i)).doesNotContain("/spec/volumes", "/spec/volumes/-", "/spec/initContainers",
                "/spec/initContainers/-");
        assertThat(valueAt(i, "/spec/containers/0/volumeMounts/-"))
                .isEqualTo(Map.of("name", "cb-plugin", "mountPath", "/cb-plugin", "readOnly", true));
        assertThat(valueAt(i, "/spec/containers/0/env/-")).isEqualTo(Map.of("name", "PYTHONPATH", "value", "/cb-plugin"));
        assertThat(i.patch().stream().filter(o -> o.path().equals("/spec/imagePullSecrets/-")).map(PatchOp::value).toList())
                .containsExactly(Map.of("name", "tm-pull"));
    }

    @Test
    void pythonPathIsPrependedToTheEffectiveEntryOrReplacedWhenItComesFromValueFrom() {
        Pod literal = Fixtures.pod("{\"metadata\":{\"annotations\":{}},\"spec\":{\"containers\":[{\"name\":\"vllm\","
                + "\"env\":[{\"name\":\"PYTHONPATH\",\"value\":\"/old\"},{\"name\":\"PYTHONPATH\",\"value\":\"/app\"}]}]}}");
        CacheBlendMutation.Injection i = inject(literal, Fixtures.engine());
        assertThat(i.patch()).contains(PatchOp.replace("/spec/containers/0/env/1",
                Map.of("name", "PYTHONPATH", "value", "/cb-plugin:/app")));
        assertThat(i.warnings()).isEmpty();

        Pod fromSecret = Fixtures.pod("{\"metadata\":{\"annotations\":{}},\"spec\":{\"containers\":[{\"name\":\"vllm\","
                + "\"env\":[{\"name\":\"PYTHONPATH\",\"valueFrom\":{\"secretKeyRef\":{\"name\":\"s\",\"key\":\"k\"}}}]}]}}");
        i = inject(fromSecret, Fixtures.engine());
        assertThat(i.patch()).contains(PatchOp.replace("/spec/containers/0/env/0",
                Map.of("name", "PYTHONPATH", "value", "/cb-plugin")));
        assertThat(i.warnings()).extracting(Warning::code).containsExactly(ReasonCode.WARN_PYTHONPATH_VALUEFROM);
        assertThat(i.warnings().get(0).message()).contains("\"vllm\"").contains("valueFrom").contains("literal");
    }

    @Test
    void aPdEngineAddsTheSideChannelVariablesTheContainerDoesNotSet() {
        Pod pod = Fixtures.pod("{\"metadata\":{\"annotations\":{}},\"spec\":{\"containers\":[{\"name\":\"vllm\","
                + "\"env\":[{\"name\":\"VLLM_NIXL_SIDE_CHANNEL_HOST\",\"value\":\"10.0.0.1\"}]}]}}");
        CacheBlendMutation.Injection i = inject(pod, Fixtures.engine(Optional.empty(), "eager", true, List.of()));
        assertThat(i.patch().stream().filter(o -> o.path().equals("/spec/containers/0/env/-")).map(PatchOp::value).toList())
                .containsExactly(Map.of("name", "PYTHONPATH", "value", "/cb-plugin"),
                        Map.of("name", "VLLM_NIXL_SIDE_CHANNEL_PORT", "value", "5558"));
        assertThat(paths(inject(pod, Fixtures.engine()))).filteredOn(p -> p.startsWith("/spec/containers/0/env"))
                .hasSize(1);
    }

    @Test
    void anOppositeBooleanIsNamedWithTheFlagCacheBlendAppends() {
        Pod pod = Fixtures.pod("{\"metadata\":{\"annotations\":{}},\"spec\":{\"containers\":[{\"name\":\"vllm\","
                + "\"args\":[\"--enable-chunked-prefill\",\"--async-scheduling\"]}]}}");
        CacheBlendMutation.Injection i = inject(pod, Fixtures.engine());
        assertThat(i.warnings()).extracting(Warning::code).containsExactly(ReasonCode.WARN_OVERRIDDEN_FLAG);
        assertThat(i.warnings().get(0).message()).isEqualTo("warn-overridden-flag: container \"vllm\" sets"
                + " \"--enable-chunked-prefill\", \"--async-scheduling\", overridden by the --no-enable-chunked-prefill,"
                + " --no-async-scheduling CacheBlend appends; remove them from the Pod");
    }

    @Test
    void theHazardsAreWarningsInCatalogueOrder() {
        Pod pod = Fixtures.pod("{\"metadata\":{\"annotations\":{}},\"spec\":{\"volumes\":[{\"name\":\"dshm\","
                + "\"emptyDir\":{\"medium\":\"Memory\"}}],\"containers\":[{\"name\":\"vllm\","
                + "\"volumeMounts\":[{\"name\":\"dshm\",\"mountPath\":\"/dev/shm\"}],"
                + "\"env\":[{\"name\":\"VLLM_PLUGINS\",\"value\":\"\"}],"
                + "\"args\":[\"--config\",\"/etc/v.yaml\",\"--block-size\",\"16\"]}]}}");
        CacheBlendMutation.Injection i = inject(pod, Fixtures.engine());
        assertThat(i.warnings()).extracting(Warning::code).containsExactly(ReasonCode.WARN_CONFIG_FILE,
                ReasonCode.WARN_OVERRIDDEN_FLAG, ReasonCode.WARN_VLLM_PLUGINS, ReasonCode.WARN_DEV_SHM_EMPTYDIR);
        assertThat(i.warnings()).allSatisfy(w -> {
            assertThat(w.message()).startsWith(w.code().id() + ": container \"vllm\"");
            assertThat(w.message()).doesNotContain("\n");
        });
        assertThat(i.warnings().get(0).message()).contains("\"/etc/v.yaml\"").contains("cannot read");
        assertThat(i.warnings().get(1).message()).contains("\"--block-size\"").contains("remove them");
        assertThat(i.warnings().get(2).message()).contains("VLLM_PLUGINS to \"\"");
        assertThat(i.warnings().get(3).message()).contains("\"dshm\" (emptyDir)").contains("\"/dev/shm\"")
                .contains("remove that mount");
    }

    @Test
    void aHostPathDevShmMountOfTheUsersOwnIsNotAHazard() {
        Pod pod = Fixtures.pod("{\"metadata\":{\"annotations\":{}},\"spec\":{\"volumes\":[{\"name\":\"shm\","
                + "\"hostPath\":{\"path\":\"/dev/shm\"}}],\"containers\":[{\"name\":\"vllm\","
                + "\"volumeMounts\":[{\"name\":\"shm\",\"mountPath\":\"/dev/shm\"}]}]}}");
        CacheBlendMutation.Injection i = inject(pod, Fixtures.engine(Optional.of(false), "eager", false, List.of()));
        assertThat(i.warnings()).isEmpty();
        assertThat(valueAt(i, "/spec/volumes/-")).isEqualTo(Map.of("name", "cb-plugin", "emptyDir", Map.of()));
    }

    @Test
    void aStaleSkipReasonIsRemovedWhenThePodIsInjected() {
        Pod pod = Fixtures.pod("{\"metadata\":{\"annotations\":{\"lmcache.ai/cacheblend-skip-reason\":\"engine-not-found\"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"vllm\"}]}}");
        assertThat(inject(pod, Fixtures.engine()).patch()).endsWith(
                PatchOp.add("/metadata/annotations/lmcache.ai~1cacheblend-injected", "true"),
                new PatchOp(PatchOp.Op.REMOVE, "/metadata/annotations/lmcache.ai~1cacheblend-skip-reason", null));
    }

    @Test
    void aSkipWritesOnlyTheSkipReasonCreatingWhatIsMissing() {
        assertThat(CacheBlendMutation.skipPatch(Fixtures.pod("{\"spec\":{}}"), "engine-ref-invalid")).containsExactly(
                PatchOp.add("/metadata", Map.of("annotations", Map.of("lmcache.ai/cacheblend-skip-reason",
                        "engine-ref-invalid"))));
        assertThat(CacheBlendMutation.skipPatch(Fixtures.pod("{\"metadata\":{\"name\":\"p\"}}"), "engine-ref-invalid"))
                .containsExactly(PatchOp.add("/metadata/annotations",
                        Map.of("lmcache.ai/cacheblend-skip-reason", "engine-ref-invalid")));
        assertThat(CacheBlendMutation.skipPatch(Fixtures.pod("{\"metadata\":{\"annotations\":{\"a\":\"b\"}}}"),
                "launch-unproven")).containsExactly(
                PatchOp.add("/metadata/annotations/lmcache.ai~1cacheblend-skip-reason", "launch-unproven"));
    }

    @Test
    void thePullSecretAnnotationReplacesTheEnginesList() {
        Pod pod = Fixtures.pod("{\"metadata\":{\"annotations\":{\"lmcache.ai/cacheblend-image-pull-secrets\":"
                + "\" a, ,b ,a\"}},\"spec\":{\"containers\":[{\"name\":\"vllm\"}]}}");
        assertThat(CacheBlendMutation.pullSecretNames(pod, Fixtures.engine())).containsExactly("a", "b");
        Pod blank = Fixtures.pod("{\"metadata\":{\"annotations\":{\"lmcache.ai/cacheblend-image-pull-secrets\":\" \"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"vllm\"}]}}");
        assertThat(CacheBlendMutation.pullSecretNames(blank, Fixtures.engine())).containsExactly("cacheblend-plugin-pull");
    }
}
