package io.kvcacheinjector.ports.in.cacheblend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvcacheinjector.ports.in.CacheBlendSettings;
import org.junit.jupiter.api.Test;

class CacheBlendSettingsTest {

    @Test
    void theServerFlagsBecomeTheSettings() {
        CacheBlendSettings s = CacheBlendSettings.of(" tensormesh-operator, ,lmcache-shared,", true, "kvcache-injector");
        assertThat(s.allowedNamespaces()).containsExactlyInAnyOrder("tensormesh-operator", "lmcache-shared");
        assertThat(s.failClosed()).isTrue();
        assertThat(s.excludedNamespaces()).containsExactlyInAnyOrder("kvcache-injector", "kube-system", "kube-public");
    }

    @Test
    void anEmptyListAllowsOnlyThePodsOwnNamespace() {
        CacheBlendSettings s = CacheBlendSettings.of("", false, "");
        assertThat(s.allowedNamespaces()).isEmpty();
        assertThat(s.excludedNamespaces()).containsExactlyInAnyOrder("kube-system", "kube-public");
    }

    @Test
    void aNameThatCannotBeANamespaceStopsStartUpNamingIt() {
        assertThatThrownBy(() -> CacheBlendSettings.of("ops,Team_A", false, "kvcache-injector"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--cacheblend-allowed-namespaces")
                .hasMessageContaining("\"Team_A\"");
    }
}
