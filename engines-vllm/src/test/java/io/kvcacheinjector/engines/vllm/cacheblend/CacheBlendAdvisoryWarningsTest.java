package io.kvcacheinjector.engines.vllm.cacheblend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.ports.testing.FakeClusterDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The words of this project's two advisory CacheBlend warnings, on the golden cases that produce them (the golden
 * suite pins their codes and the patch): each names the object, the value as written and the fix.
 */
class CacheBlendAdvisoryWarningsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path CASES = Path.of("src", "test", "resources", "testdata", "cacheblend");

    private static List<Warning> warningsOf(String caseName) throws IOException {
        Path dir = CASES.resolve(caseName);
        Object pod = JSON.readValue(dir.resolve("pod.json").toFile(), Object.class);
        Decision d = new CacheBlendGoldenTest().decide("team-a", pod, FakeClusterDirectory.load(dir.resolve("cluster")));
        assertThat(d).isInstanceOf(Decision.Admit.class);
        return ((Decision.Admit) d).warnings();
    }

    @Test
    void aNamespaceThatIsNotPrivilegedIsNamedWithItsLabelAndTheFix() throws IOException {
        assertThat(warningsOf("inject-namespace-not-privileged-warned")).singleElement().satisfies(w -> {
            assertThat(w.code()).isEqualTo(ReasonCode.WARN_NAMESPACE_NOT_PRIVILEGED);
            assertThat(w.message()).isEqualTo("warn-namespace-not-privileged: Namespace team-a has"
                    + " pod-security.kubernetes.io/enforce=\"baseline\", which rejects the injected hostIPC; label the"
                    + " namespace pod-security.kubernetes.io/enforce=privileged");
        });
    }

    @Test
    void unmatchedEngineAndPayloadTagsAreNamedWithTheEngineAndTheFix() throws IOException {
        assertThat(warningsOf("inject-images-mismatched-warned")).singleElement().satisfies(w -> {
            assertThat(w.code()).isEqualTo(ReasonCode.WARN_IMAGES_MISMATCHED);
            assertThat(w.message()).isEqualTo("warn-images-mismatched: CacheBlendEngine team-a/cb injects payload tag"
                    + " \"v0.5.3\" but runs image tag \"v0.5.2\" (ImportError at start); pin a matched pair of tags on"
                    + " the engine");
        });
    }

    @Test
    void aPrivilegedNamespaceAndMatchedTagsGiveNoWarning() throws IOException {
        assertThat(warningsOf("inject-privileged-namespace-and-matched-tags-not-warned")).isEmpty();
    }
}
