package io.kvcacheinjector.engines.vllmfamily;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.flags.FlagVerdicts;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Writes the webhook's verdict on every spelling of every flag the vLLM family's rendering owns (vLLM and
 * vLLM-Ascend share grammar and keys), for the fidelity harness (tools/fidelity/run passes -Dfidelity.out);
 * skipped in an ordinary build.
 */
class FidelityVerdictsDump {

    @Test
    void dump() throws Exception {
        String out = System.getProperty("fidelity.out");
        Assumptions.assumeTrue(out != null && !out.isBlank(), "only run by tools/fidelity/run");
        List<String> flags = new ArrayList<>();
        for (WatchedKey key : VllmFamilyRendering.watchedKeys("vLLM", true)) {
            if (key.kind() == WatchedKey.Kind.FLAG) {
                flags.add(key.name());
            }
        }
        List<String> lines = FlagVerdicts.lines(VllmFlagGrammar.INSTANCE, "vllm", flags, true);
        assertThat(lines).isNotEmpty();
        Files.write(Path.of(out, "vllm.tsv"), lines);
    }
}
