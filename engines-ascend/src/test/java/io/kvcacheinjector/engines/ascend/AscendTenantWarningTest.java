package io.kvcacheinjector.engines.ascend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.ports.service.KvCacheInjection;
import io.kvcacheinjector.ports.testing.EngineContractTest;
import io.kvcacheinjector.ports.testing.FakeClusterDirectory;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * vLLM-Ascend does not read the injected tenant (up to 0.23.0.post1): a Pod bound to a pool that keeps a tenant ledger
 * is admitted with {@code warn-tenant-unread}, whose message names the container, the pool, the domain and the fix.
 */
class AscendTenantWarningTest {
    private static final Path SUITE = Path.of("src", "test", "resources", "testdata", "vllm-ascend");

    @Test
    void theEngineSaysItDoesNotReadTheTenant() {
        assertThat(new AscendEngine().readsTenant()).isFalse();
    }

    @Test
    void aMultiTenantPoolWarnsThatTheWritesGoToTenantDefault() throws IOException {
        Object pod = new ObjectMapper().readValue(
                SUITE.resolve("admit-first-ascend-offer-of-a-mixed-vendor-backend").resolve("pod.json").toFile(), Object.class);
        FakeClusterDirectory cluster = FakeClusterDirectory.load(SUITE.resolve("_cluster"));

        Decision decision = new KvCacheInjection(cluster, cluster, EngineContractTest.installedWithStandIns())
                .mutate("team-a", new ReceivedPod(pod));

        assertThat(decision).isInstanceOf(Decision.Admit.class);
        Warning warning = ((Decision.Admit) decision).warnings().get(0);
        assertThat(warning.code()).isEqualTo(ReasonCode.WARN_TENANT_UNREAD);
        assertThat(warning.message())
                .startsWith("warn-tenant-unread: container \"server\" (vllm-ascend (engine vLLM with manufacturer Ascend))"
                        + " runs vLLM-Ascend, which does not read the injected tenant")
                .contains("writes go to Mooncake's tenant \"default\" instead of domain \"team-a-npu\" of KVCachePool npu")
                .contains("tenantInjected: true")
                .endsWith("run a vLLM-Ascend release that reads the tenant, or register the domain \"default\" on the"
                        + " pool if sharing it is intended");
    }
}
