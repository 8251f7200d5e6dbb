package io.kvcacheinjector.engines.vllm.cacheblend;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.ports.testing.EngineContractTest;
import io.kvcacheinjector.ports.service.CacheBlendInjection;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.testing.FakeClusterDirectory;
import io.kvcacheinjector.ports.testing.GoldenContractTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The CacheBlend golden suite ({@code src/test/resources/testdata/cacheblend/}), decided by {@link CacheBlendInjection}
 * with the real vLLM grammar, as an install with the allow-list {@code lmcache-shared}, skips (not refusals), and
 * the webhook running in {@code kvcache-injector}.
 */
class CacheBlendGoldenTest extends GoldenContractTest {
    static final String WEBHOOK_NAMESPACE = "kvcache-injector";

    /** The only paths the CacheBlend contract writes (docs/reference/cacheblend-injection.md). */
    static final List<Pattern> ALLOWED = patterns(
            "/spec/hostIPC",
            "/spec/volumes(/-)?",
            "/spec/initContainers(/-)?",
            "/spec/imagePullSecrets(/-)?",
            "/spec/containers/\\d+/(volumeMounts|env|args)(/-)?",
            "/spec/containers/\\d+/env/\\d+",
            "/metadata",
            "/metadata/annotations",
            "/metadata/annotations/lmcache\\.ai~1cacheblend-(injected|skip-reason)");

    @Override
    protected String suite() {
        return "cacheblend";
    }

    @Override
    protected Decision decide(String namespace, Object pod, FakeClusterDirectory directory) {
        return new CacheBlendInjection(directory, EngineContractTest.installedWithStandIns(),
                CacheBlendSettings.of("lmcache-shared", false, WEBHOOK_NAMESPACE)).mutate(namespace, new ReceivedPod(pod));
    }

    @Override
    protected List<Pattern> allowedPaths() {
        return ALLOWED;
    }

    @Test
    void everyCacheBlendSkipReasonHasAGoldenCase() throws IOException {
        Set<String> seen = new HashSet<>();
        for (Path c : caseDirs()) {
            for (String file : List.of("expected-warnings.txt", "expected-refusal.txt")) {
                Path f = c.resolve(file);
                if (Files.exists(f)) {
                    List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                    (file.equals("expected-refusal.txt") ? lines.subList(0, 1) : lines)
                            .forEach(l -> seen.add(l.trim()));
                }
            }
        }
        // lookup-failed needs a failing cluster view, which a case folder cannot express: CacheBlendInjectionTest.
        List<String> needed = Arrays.stream(ReasonCode.values())
                .filter(c -> c.webhooks().contains(Webhook.CACHEBLEND_MUTATE))
                .filter(c -> c != ReasonCode.LOOKUP_FAILED)
                .map(ReasonCode::id)
                .toList();
        assertThat(seen).as("codes pinned by the CacheBlend golden cases").containsAll(needed);
    }
}
