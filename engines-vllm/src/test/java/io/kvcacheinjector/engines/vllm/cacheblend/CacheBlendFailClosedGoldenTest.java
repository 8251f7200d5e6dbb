package io.kvcacheinjector.engines.vllm.cacheblend;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.ports.testing.EngineContractTest;
import io.kvcacheinjector.ports.service.CacheBlendInjection;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.testing.FakeClusterDirectory;
import io.kvcacheinjector.ports.testing.GoldenContractTest;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The CacheBlend golden cases of an install with {@code --cacheblend-fail-closed}
 * ({@code testdata/cacheblend/_fail-closed/}, same cluster as the main suite): every skip becomes a refusal, and a
 * Pod that passes every check is injected exactly as without the switch.
 */
class CacheBlendFailClosedGoldenTest extends GoldenContractTest {
    @Override
    protected String suite() {
        return "cacheblend/_fail-closed";
    }

    @Override
    protected Decision decide(String namespace, Object pod, FakeClusterDirectory directory) {
        return new CacheBlendInjection(directory, EngineContractTest.installedWithStandIns(),
                CacheBlendSettings.of("lmcache-shared", true, CacheBlendGoldenTest.WEBHOOK_NAMESPACE))
                .mutate(namespace, new ReceivedPod(pod));
    }

    @Override
    protected List<Pattern> allowedPaths() {
        return CacheBlendGoldenTest.ALLOWED;
    }
}
