package io.kvcacheinjector.adapters.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.cluster.Condition;
import io.kvcacheinjector.domain.cluster.ConfigMapData;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What every cluster view answers for the fixture cluster under {@code src/test/resources/cluster}: the file-backed
 * directory reads the files, the informer directory reads the same objects from a mock API server. A behaviour
 * pinned here therefore holds both ways.
 */
public abstract class ClusterDirectoryContract {

    /** The view under test, loaded with {@link #fixtureCluster()} and synced. */
    protected abstract ClusterDirectoryPort directory();

    /** The same object, as a settings port; read from namespace {@code gpustack-system}. */
    protected abstract SettingsPort settings();

    public static Path fixtureCluster() {
        try {
            return Path.of(ClusterDirectoryContract.class.getResource("/cluster").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void isSyncedOnceLoaded() {
        assertThat(directory().syncState()).isInstanceOf(SyncState.Synced.class);
    }

    @Test
    void readsABindingWithItsPoolDomainAndDtype() {
        assertThat(directory().binding("team-a", "chat")).isEqualTo(Lookup.found(
                new KvCachePoolBinding("team-a", "chat", Optional.of("shared"), "team-a-chat", "bfloat16", false)));
    }

    @Test
    void aBindingWithoutDomainNameIsInDomainDefault() {
        Lookup<KvCachePoolBinding> plain = directory().binding("team-b", "plain");
        assertThat(plain).isInstanceOf(Lookup.Found.class);
        KvCachePoolBinding binding = ((Lookup.Found<KvCachePoolBinding>) plain).value();
        assertThat(binding.domain()).isEqualTo("default");
        assertThat(binding.dtype()).isEqualTo("fp8_e4m3");
        assertThat(binding.poolName()).contains("single-tenant");
    }

    @Test
    void aBindingIsResolvedInItsOwnNamespaceOnly() {
        assertThat(directory().binding("team-b", "chat")).isEqualTo(Lookup.notFound());
        assertThat(directory().binding("team-a", "missing")).isEqualTo(Lookup.notFound());
    }

    @Test
    void aTerminatingBindingIsMarkedTerminating() {
        assertThat(directory().binding("team-a", "leaving")).isEqualTo(Lookup.found(
                new KvCachePoolBinding("team-a", "leaving", Optional.of("shared"), "team-a-old", "fp8", true)));
    }

    @Test
    void readsAPoolWithItsEndpointAndLedgerConditionFromStatus() {
        assertThat(directory().pool("shared")).isEqualTo(Lookup.found(new KvCachePool("shared", List.of("mc"),
                "mc-leader.kv.svc:50051",
                Optional.of(new Condition("QuotaLedgerAvailable", "True", "Available", "ledger reachable")))));
        assertThat(directory().pool("single-tenant")).isEqualTo(Lookup.found(new KvCachePool("single-tenant",
                List.of("mixed"), "mc-st.kv.svc:50051", Optional.of(new Condition("QuotaLedgerAvailable", "False",
                        "MultiTenancyDisabled", "the master runs without tenants")))));
        assertThat(directory().pool("nope")).isEqualTo(Lookup.notFound());
    }

    @Test
    void readsBackendsWithBackendWideAndPerGroupProtocols() {
        assertThat(directory().backend("mc")).isEqualTo(Lookup.found(
                new KvCacheBackend("mc", Optional.of("RDMA"), List.of(Optional.empty(), Optional.empty()))));
        assertThat(directory().backend("mixed")).isEqualTo(Lookup.found(new KvCacheBackend("mixed", Optional.empty(),
                List.of(Optional.of("CANN"), Optional.empty(), Optional.of("TCP")))));
        assertThat(directory().backend("nope")).isEqualTo(Lookup.notFound());
    }

    @Test
    void readsACacheBlendEngineWithUpstreamDefaultsApplied() {
        assertThat(directory().cacheBlendEngine("lmcache", "cb")).isEqualTo(Lookup.found(new CacheBlendEngine(
                "lmcache", "cb", Optional.of("tensormesh/cacheblend-plugin"), "0.5.3", "IfNotPresent",
                List.of("cacheblend-plugin-pull"), Optional.empty(), "piecewise", Optional.of(false), false, 5558)));
        assertThat(directory().cacheBlendEngine("team-a", "cb")).isEqualTo(Lookup.notFound());
    }

    @Test
    void readsTheConnectionConfigMapVerbatim() {
        assertThat(directory().configMap("lmcache", "cb-connection")).isEqualTo(Lookup.found(new ConfigMapData(
                "lmcache", "cb-connection", java.util.Map.of("kv-transfer-config.json",
                        "{\n  \"kv_connector\": \"CBKVConnector\",\n  \"kv_role\": \"kv_both\"\n}"))));
        assertThat(directory().configMap("lmcache", "other-connection")).isEqualTo(Lookup.notFound());
    }

    @Test
    void theDtypeSettingComesFromTheSettingsSecretInTheSettingsNamespace() {
        // gpustack-system/gpustack-settings says "false"; the "true" in namespace elsewhere is not the settings Secret
        assertThat(settings().kvCacheDtypeOwned()).isFalse();
    }
}
