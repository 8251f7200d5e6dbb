package io.kvcacheinjector.ports.in;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.ports.service.KvCacheInjection;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.cluster.Condition;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.kvcache.EnvEntry;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.Rendering;
import io.kvcacheinjector.domain.kvcache.EngineSelector;
import io.kvcacheinjector.domain.kvcache.RequiredTransport;
import io.kvcacheinjector.domain.kvcache.Vehicle;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import io.kvcacheinjector.domain.launch.EntryPoint;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.Engines;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.mockito.Mockito;

/**
 * The parts of the kvcache pipeline that golden files cannot express: the cluster view's state (Mockito fakes the
 * driven ports) and the Setting. The engine is a minimal test engine; the real engines are covered by their golden
 * suites.
 */
class KvCacheInjectionTest {
    private static final Map<String, Object> POD = Map.of(
            "metadata", Map.of("name", "p", "namespace", "team-a",
                    "labels", Map.of("kvcache.gpustack.ai/inject", "true"),
                    "annotations", Map.of("kvcache.gpustack.ai/binding", "chat", "kvcache.gpustack.ai/engine", "vLLM")),
            "spec", Map.of("containers", List.of(Map.of("name", "server", "command", List.of("vllm"),
                    "args", List.of("serve", "m", "--kv-cache-dtype", "fp8")))));

    private final ClusterDirectoryPort directory = Mockito.mock(ClusterDirectoryPort.class);
    private final SettingsPort settings = Mockito.mock(SettingsPort.class);

    private KvCacheInjection injection() {
        return new KvCacheInjection(directory, settings, Engines.of(List.of(new TestEngine())));
    }

    private void healthyCluster() {
        Mockito.when(directory.syncState()).thenReturn(SyncState.synced());
        Mockito.when(directory.binding("team-a", "chat")).thenReturn(
                Lookup.found(new KvCachePoolBinding("team-a", "chat", Optional.of("shared"), "d", "bfloat16", false)));
        Mockito.when(directory.pool("shared")).thenReturn(Lookup.found(new KvCachePool("shared", List.of("mc"), "mc:50051",
                Optional.of(new Condition("QuotaLedgerAvailable", "True", "Available", "")))));
        Mockito.when(directory.backend("mc")).thenReturn(Lookup.found(new KvCacheBackend("mc", Optional.of("TCP"), List.of())));
    }

    @Test
    void anUnsyncedViewRefusesAsClusterNotReadyWithoutReadingAnything() {
        Mockito.when(directory.syncState()).thenReturn(new SyncState.NotSynced("informers for KVCachePool have not synced"));
        Decision.Refuse r = (Decision.Refuse) injection().mutate("team-a", new ReceivedPod(POD));
        assertThat(r.codes()).containsExactly(ReasonCode.CLUSTER_NOT_READY);
        assertThat(r.message()).contains("KVCachePoolBinding \"team-a/chat\"").contains("have not synced").contains("retry");
        Mockito.verify(directory, Mockito.never()).binding(Mockito.any(), Mockito.any());
    }

    @Test
    void aFailedLiveReadRefusesAsClusterNotReadyQuotingTheReason() {
        Mockito.when(directory.syncState()).thenReturn(SyncState.synced());
        Mockito.when(directory.binding("team-a", "chat")).thenReturn(Lookup.failed("the API server answered 403 Forbidden"));
        Decision.Refuse r = (Decision.Refuse) injection().mutate("team-a", new ReceivedPod(POD));
        assertThat(r.codes()).containsExactly(ReasonCode.CLUSTER_NOT_READY);
        assertThat(r.message()).contains("403 Forbidden").contains("read permissions");
    }

    @Test
    void withTheSettingOnTheContainersOwnDtypeIsRefused() {
        healthyCluster();
        Mockito.when(settings.kvCacheDtypeOwned()).thenReturn(true);
        Decision.Refuse r = (Decision.Refuse) injection().mutate("team-a", new ReceivedPod(POD));
        assertThat(r.codes()).containsExactly(ReasonCode.DTYPE_OWNED);
        assertThat(r.message()).contains("\"--kv-cache-dtype\"").contains("model-deployment-kv-cache-dtype-owned");
    }

    @Test
    void withTheSettingOffNothingIsRenderedAndNothingRefused() {
        healthyCluster();
        Mockito.when(settings.kvCacheDtypeOwned()).thenReturn(false);
        Decision d = injection().mutate("team-a", new ReceivedPod(POD));
        assertThat(d).isInstanceOf(Decision.Admit.class);
        assertThat(((Decision.Admit) d).patch().toString()).doesNotContain("bfloat16");
    }

    @Test
    void aPodWithoutTheLabelIsAdmittedUnchangedWithoutAnyLookup() {
        Decision d = injection().mutate("team-a", new ReceivedPod(Map.of("metadata", Map.of("labels", Map.of("kvcache.gpustack.ai/inject", "yes")))));
        assertThat(d).isEqualTo(Decision.Admit.unchanged());
        Mockito.verifyNoInteractions(directory, settings);
    }

    /** A minimal vLLM-like engine: watches the dtype flag exactly, renders one arg. */
    private static final class TestEngine implements EngineInjector {
        public String id() {
            return "vllm";
        }

        public String displayName() {
            return "vLLM";
        }

        public EntryPoint entryPoint() {
            return EntryPoint.program("vllm", "vLLM", "vllm serve");
        }

        public EngineSelector selector() {
            return EngineSelector.engine("vLLM");
        }

        public Vehicle vehicle() {
            return Vehicle.ENVIRONMENT;
        }

        public Optional<RequiredTransport> requiredTransport() {
            return Optional.empty();
        }

        public FlagGrammar flagGrammar() {
            return new FlagGrammar() {
                public String engineName() {
                    return "vLLM";
                }

                public Optional<String> name(String token) {
                    return token.startsWith("--") && token.length() > 2 ? Optional.of(token.split("=", 2)[0]) : Optional.empty();
                }

                public Set<String> catalogue() {
                    return Set.of("--kv-cache-dtype", "--model");
                }
            };
        }

        public List<WatchedKey> watchedKeys(boolean dtypeOwned) {
            return dtypeOwned ? List.of(WatchedKey.flag("--kv-cache-dtype", ReasonCode.DTYPE_OWNED, "the dtype comes from the Binding"))
                    : List.of();
        }

        public Rendering render(InjectionValues v) {
            return new Rendering(Vehicle.ENVIRONMENT, v.dtype().map(d -> List.of("--kv-cache-dtype", d)).orElse(List.of()), List.of(),
                    List.of(EnvEntry.literal("X", "1")), Optional.empty());
        }
    }
}
