package io.kvcacheinjector.ports.in.cacheblend;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.cluster.ConfigMapData;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.json.Json;
import io.kvcacheinjector.ports.service.CacheBlendInjection;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.testing.FakeClusterDirectory;
import io.kvcacheinjector.domain.kvcache.EngineSelector;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.Rendering;
import io.kvcacheinjector.domain.kvcache.Vehicle;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import io.kvcacheinjector.domain.launch.EntryPoint;
import io.kvcacheinjector.ports.spi.EngineCapability;
import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.Engines;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The use case's order and its answers where the golden suite cannot reach: failing reads ({@code lookup-failed}),
 * what is (not) read before the allow-list and the PD role are checked, the namespace the Pod is in, and the
 * fail-closed switch. The golden suite in engines-vllm covers every other reason with the real vLLM grammar.
 */
class CacheBlendInjectionTest {

    /** vLLM's reduction of a token: {@code --} only, cut at {@code =}, underscores to dashes before a dot, cut at it. */
    private static final FlagGrammar VLLM_LIKE = new FlagGrammar() {
        @Override
        public String engineName() {
            return "vLLM";
        }

        @Override
        public Optional<String> name(String token) {
            if (!token.startsWith("--")) {
                return Optional.empty();
            }
            String flag = token.indexOf('=') < 0 ? token : token.substring(0, token.indexOf('='));
            int dot = flag.indexOf('.');
            String name = "--" + (dot < 0 ? flag.substring(2) : flag.substring(2, dot)).replace('_', '-');
            return name.equals("--") ? Optional.empty() : Optional.of(name);
        }

        @Override
        public Set<String> catalogue() {
            return Set.of("--kv-transfer-config", "--kv-events-config", "--block-size", "--config");
        }
    };

    /** One installed engine with the CacheBlend capability, reading flags as {@link #VLLM_LIKE}. */
    private static final Engines ENGINES = Engines.of(List.of(new EngineInjector() {
        public String id() {
            return "vllm";
        }

        public String displayName() {
            return "vLLM";
        }

        public EngineSelector selector() {
            return EngineSelector.engine("vLLM");
        }

        public EntryPoint entryPoint() {
            return EntryPoint.program("vllm", "vLLM", "vllm serve");
        }

        public Vehicle vehicle() {
            return Vehicle.FILE;
        }

        public FlagGrammar flagGrammar() {
            return VLLM_LIKE;
        }

        public List<WatchedKey> watchedKeys(boolean dtypeOwned) {
            return List.of();
        }

        public Rendering render(InjectionValues values) {
            throw new UnsupportedOperationException("the CacheBlend use case never renders kvcache");
        }

        public Set<EngineCapability> capabilities() {
            return Set.of(EngineCapability.CACHEBLEND);
        }
    }));

    private static final CacheBlendSettings SKIPS = CacheBlendSettings.of("shared", false, "kvcache-injector");
    private static final CacheBlendSettings FAIL_CLOSED = CacheBlendSettings.of("shared", true, "kvcache-injector");
    private static final String SKIP_REASON_PATH = "/metadata/annotations/lmcache.ai~1cacheblend-skip-reason";

    private static final CacheBlendEngine ENGINE = new CacheBlendEngine("team-a", "cb",
            Optional.of("tensormesh/cacheblend-plugin"), "v0.5.3", "IfNotPresent", List.of(), Optional.empty(), "eager",
            Optional.empty(), false, 5558);
    private static final ConfigMapData CONNECTION = new ConfigMapData("team-a", "cb-connection",
            Map.of("kv-transfer-config.json", "{\"kv_connector\":\"CBKVConnector\",\"kv_role\":\"kv_both\"}"));

    private static Object pod(String labels, String annotations) {
        return Json.parse("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"chat-0\",\"labels\":" + labels
                + ",\"annotations\":" + annotations + "},\"spec\":{\"containers\":[{\"name\":\"vllm\",\"args\":[\"m\"]}]}}")
                .orElseThrow();
    }

    private static Object optedIn(String engineRef) {
        return pod("{\"lmcache.ai/cacheblend-inject\":\"true\"}", "{\"lmcache.ai/cacheblend-engine\":\"" + engineRef + "\"}");
    }

    private static FakeClusterDirectory cluster() {
        FakeClusterDirectory d = new FakeClusterDirectory();
        d.add(Map.of("kind", "CacheBlendEngine", "metadata", Map.of("name", "cb", "namespace", "team-a"),
                "spec", Map.of("injection", Map.of("payloadImage", Map.of("repository", "tensormesh/cacheblend-plugin")))));
        d.add(Map.of("kind", "ConfigMap", "metadata", Map.of("name", "cb-connection", "namespace", "team-a"),
                "data", CONNECTION.data()));
        return d;
    }

    private static Decision.Skip skipped(Decision d, ReasonCode code) {
        assertThat(d).isInstanceOf(Decision.Skip.class);
        Decision.Skip s = (Decision.Skip) d;
        assertThat(s.code()).isEqualTo(code);
        assertThat(s.message()).startsWith(code.id() + ": ");
        assertThat(s.patch()).containsExactly(PatchOp.add(SKIP_REASON_PATH, code.id()));
        return s;
    }

    @Test
    void aFullyConfiguredPodIsInjected() {
        Decision d = new CacheBlendInjection(cluster(), ENGINES, SKIPS).mutate("team-a", new ReceivedPod(optedIn("cb")));
        assertThat(d).isInstanceOf(Decision.Admit.class);
        assertThat(((Decision.Admit) d).patch()).extracting(PatchOp::path)
                .contains("/spec/hostIPC", "/metadata/annotations/lmcache.ai~1cacheblend-injected");
    }

    @Test
    void aFailingEngineReadIsLookupFailedNeverAnException() {
        Decision d = new CacheBlendInjection(cluster().failing("cacheblendengines is forbidden for the service account"),
                ENGINES, SKIPS).mutate("team-a", new ReceivedPod(optedIn("cb")));
        Decision.Skip s = skipped(d, ReasonCode.LOOKUP_FAILED);
        assertThat(s.message()).contains("CacheBlendEngine team-a/cb could not be read")
                .contains("cacheblendengines is forbidden for the service account");
    }

    @Test
    void anUnsyncedViewIsLookupFailedBeforeAnyRead() {
        ClusterDirectoryPort directory = mock(ClusterDirectoryPort.class);
        when(directory.syncState()).thenReturn(new SyncState.NotSynced("the CacheBlendEngine informer is starting"));
        Decision d = new CacheBlendInjection(directory, ENGINES, SKIPS).mutate("team-a", new ReceivedPod(optedIn("cb")));
        Decision.Skip s = skipped(d, ReasonCode.LOOKUP_FAILED);
        assertThat(s.message()).contains("CacheBlendEngine team-a/cb").contains("has not synced")
                .contains("the CacheBlendEngine informer is starting");
        verify(directory, never()).cacheBlendEngine("team-a", "cb");
    }

    @Test
    void aFailingConfigMapReadNamesTheConfigMap() {
        ClusterDirectoryPort directory = mock(ClusterDirectoryPort.class);
        when(directory.syncState()).thenReturn(SyncState.synced());
        when(directory.cacheBlendEngine("team-a", "cb")).thenReturn(Lookup.found(ENGINE));
        when(directory.configMap("team-a", "cb-connection")).thenReturn(Lookup.failed("the API server timed out"));
        Decision d = new CacheBlendInjection(directory, ENGINES, FAIL_CLOSED).mutate("team-a", new ReceivedPod(optedIn("cb")));
        assertThat(d).isInstanceOf(Decision.Refuse.class);
        Decision.Refuse r = (Decision.Refuse) d;
        assertThat(r.codes()).containsExactly(ReasonCode.LOOKUP_FAILED);
        assertThat(r.message()).startsWith("lookup-failed: ConfigMap team-a/cb-connection could not be read"
                + " (the API server timed out)").contains("Check the webhook's RBAC");
    }

    @Test
    void aForbiddenReferenceReadsNothingAndIsAnsweredBeforeThePdRole() {
        ClusterDirectoryPort directory = mock(ClusterDirectoryPort.class);
        Object pod = pod("{\"lmcache.ai/cacheblend-inject\":\"true\"}",
                "{\"lmcache.ai/cacheblend-engine\":\"ops/cb\",\"lmcache.ai/pd-role\":\"both\"}");
        skipped(new CacheBlendInjection(directory, ENGINES, SKIPS).mutate("team-a", new ReceivedPod(pod)), ReasonCode.ENGINE_REF_FORBIDDEN);
        verifyNoInteractions(directory);
    }

    @Test
    void anAllowListedNamespaceIsRead() {
        ClusterDirectoryPort directory = mock(ClusterDirectoryPort.class);
        when(directory.syncState()).thenReturn(SyncState.synced());
        when(directory.cacheBlendEngine("shared", "cb")).thenReturn(Lookup.notFound());
        Decision d = new CacheBlendInjection(directory, ENGINES, SKIPS).mutate("team-a", new ReceivedPod(optedIn("shared/cb")));
        assertThat(skipped(d, ReasonCode.ENGINE_NOT_FOUND).message()).contains("CacheBlendEngine shared/cb");
    }

    @Test
    void anInvalidPdRoleIsAnsweredBeforeAnyRead() {
        ClusterDirectoryPort directory = mock(ClusterDirectoryPort.class);
        Object pod = pod("{\"lmcache.ai/cacheblend-inject\":\"true\"}",
                "{\"lmcache.ai/cacheblend-engine\":\"cb\",\"lmcache.ai/pd-role\":\"prefill\"}");
        Decision.Skip s = skipped(new CacheBlendInjection(directory, ENGINES, SKIPS).mutate("team-a", new ReceivedPod(pod)),
                ReasonCode.PD_ROLE_INVALID);
        assertThat(s.message()).contains("\"prefill\"");
        verifyNoInteractions(directory);
    }

    @Test
    void theRequestNamespaceIsThePodsNamespaceAndTheObjectsIsOnlyAFallback() {
        Object pod = Json.parse("{\"metadata\":{\"namespace\":\"elsewhere\",\"labels\":{\"lmcache.ai/cacheblend-inject\":"
                + "\"true\"},\"annotations\":{\"lmcache.ai/cacheblend-engine\":\"cb\"}},\"spec\":{\"containers\":"
                + "[{\"name\":\"vllm\"}]}}").orElseThrow();
        assertThat(new CacheBlendInjection(cluster(), ENGINES, SKIPS).mutate("team-a", new ReceivedPod(pod)))
                .isInstanceOf(Decision.Admit.class);
        Decision.Skip s = skipped(new CacheBlendInjection(cluster(), ENGINES, SKIPS).mutate("", new ReceivedPod(pod)),
                ReasonCode.ENGINE_NOT_FOUND);
        assertThat(s.message()).contains("CacheBlendEngine elsewhere/cb");
    }

    @Test
    void anUnlabelledObjectIsNotExaminedEvenWhenItIsNotAReadablePod() {
        Object broken = Json.parse("{\"metadata\":{\"labels\":{\"app\":\"x\"}},\"spec\":{\"containers\":7}}").orElseThrow();
        ClusterDirectoryPort directory = mock(ClusterDirectoryPort.class);
        assertThat(new CacheBlendInjection(directory, ENGINES, FAIL_CLOSED).mutate("team-a", new ReceivedPod(broken)))
                .isEqualTo(Decision.Admit.unchanged());
        assertThat(new CacheBlendInjection(directory, ENGINES, FAIL_CLOSED).mutate("team-a", new ReceivedPod("not even an object")))
                .isEqualTo(Decision.Admit.unchanged());
        verifyNoInteractions(directory);
    }

    @Test
    void aLabelledObjectThatIsNotAReadablePodIsRefusedWhateverTheSwitch() {
        Object broken = Json.parse("{\"metadata\":{\"labels\":{\"lmcache.ai/cacheblend-inject\":\"true\"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"vllm\",\"args\":\"--block-size 64\"}]}}").orElseThrow();
        Decision d = new CacheBlendInjection(cluster(), ENGINES, SKIPS).mutate("team-a", new ReceivedPod(broken));
        assertThat(d).isInstanceOf(Decision.Refuse.class);
        assertThat(((Decision.Refuse) d).message()).startsWith("pod-unreadable: ")
                .contains("spec.containers[0].args is not a list");
    }

    @Test
    void excludedNamespacesAreAdmittedUnchangedAsTheirSelectorWouldNeverSendThem() {
        ClusterDirectoryPort directory = mock(ClusterDirectoryPort.class);
        CacheBlendInjection injection = new CacheBlendInjection(directory, ENGINES, FAIL_CLOSED);
        for (String ns : List.of("kube-system", "kube-public", "kvcache-injector")) {
            assertThat(injection.mutate(ns, new ReceivedPod(optedIn("cb")))).as(ns).isEqualTo(Decision.Admit.unchanged());
        }
        verifyNoInteractions(directory);
    }

    @Test
    void underTheSwitchEverySkipIsARefusalWithTheFullMessageAndNoPatch() {
        Decision d = new CacheBlendInjection(cluster(), ENGINES, FAIL_CLOSED).mutate("team-a", new ReceivedPod(optedIn("missing")));
        assertThat(d).isInstanceOf(Decision.Refuse.class);
        Decision.Refuse r = (Decision.Refuse) d;
        assertThat(r.reason()).isEqualTo("engine-not-found");
        assertThat(r.message()).contains("CacheBlendEngine team-a/missing").contains("looked up in the Pod's namespace")
                .contains("or create the engine");
        Decision skip = new CacheBlendInjection(cluster(), ENGINES, SKIPS).mutate("team-a", new ReceivedPod(optedIn("missing")));
        assertThat(((Decision.Skip) skip).message()).as("the skip warning is the short form")
                .hasSizeLessThan(r.message().length());
    }

    @Test
    void bothOptInLabelsAreRefusedWithoutTheSwitchAndBeforeTheInjectedStamp() {
        Object pod = pod("{\"lmcache.ai/cacheblend-inject\":\"true\",\"kvcache.gpustack.ai/inject\":\"true\"}",
                "{\"lmcache.ai/cacheblend-injected\":\"true\"}");
        Decision d = new CacheBlendInjection(cluster(), ENGINES, SKIPS).mutate("team-a", new ReceivedPod(pod));
        assertThat(d).isInstanceOf(Decision.Refuse.class);
        assertThat(((Decision.Refuse) d).message()).startsWith("contracts-conflict: Pod team-a/chat-0 sets both")
                .contains("Remove one of the two labels");
    }

    @Test
    void anAlreadyInjectedPodIsAdmittedUntouchedWithoutReadingAnything() {
        ClusterDirectoryPort directory = mock(ClusterDirectoryPort.class);
        Object pod = pod("{\"lmcache.ai/cacheblend-inject\":\"true\"}", "{\"lmcache.ai/cacheblend-injected\":\"true\"}");
        assertThat(new CacheBlendInjection(directory, ENGINES, FAIL_CLOSED).mutate("team-a", new ReceivedPod(pod)))
                .isEqualTo(Decision.Admit.unchanged());
        verifyNoInteractions(directory);
    }
}
