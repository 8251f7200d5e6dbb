package io.kvcacheinjector.domain.kvcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.pod.EnvVar;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** A watched variable that counts only with some values: what SGLang's EnvBool reads as true, or valueFrom. */
class WatchedKeyTest {
    private static final WatchedKey STANDALONE = WatchedKey.envWithValues("MOONCAKE_STANDALONE_STORAGE",
            Set.of("true", "1", "yes", "y"), ReasonCode.CONFIG_SOURCE, "it switches the store client");

    private static EnvVar literal(String name, String value) {
        return new EnvVar(name, Optional.ofNullable(value), false, Map.of("name", name));
    }

    @ParameterizedTest(name = "[{index}] \"{0}\" counts: {1}")
    @CsvSource(value = {"true,true", "TRUE,true", "Yes,true", "y,true", "1,true", "false,false", "0,false",
            "no,false", "' true',false", "on,false", "'',false"}, ignoreLeadingAndTrailingWhitespace = false)
    void countsExactlyTheValuesTheEngineReadsAsTrue(String value, boolean counts) {
        assertThat(STANDALONE.matches(literal("MOONCAKE_STANDALONE_STORAGE", value))).isEqualTo(counts);
    }

    @Test
    void anEntryWithoutValueIsHarmlessAndValueFromCounts() {
        assertThat(STANDALONE.matches(literal("MOONCAKE_STANDALONE_STORAGE", null))).isFalse();
        EnvVar fromConfigMap = new EnvVar("MOONCAKE_STANDALONE_STORAGE", Optional.empty(), true, Map.of());
        assertThat(STANDALONE.matches(fromConfigMap)).isTrue();
        assertThat(STANDALONE.describe(fromConfigMap))
                .isEqualTo("env MOONCAKE_STANDALONE_STORAGE through valueFrom (admission cannot read the value)");
        assertThat(STANDALONE.describe(literal("MOONCAKE_STANDALONE_STORAGE", "Yes")))
                .isEqualTo("env MOONCAKE_STANDALONE_STORAGE=\"Yes\"");
        assertThat(STANDALONE.matches(literal("MOONCAKE_STANDALONE_STORAGEX", "true"))).isFalse();
    }

    @Test
    void aPlainWatchedVariableCountsWhateverItsValue() {
        WatchedKey path = WatchedKey.env("SGLANG_HICACHE_MOONCAKE_CONFIG_PATH", ReasonCode.CONFIG_SOURCE, "x");
        assertThat(path.values()).isEmpty();
        assertThat(path.matches(literal("SGLANG_HICACHE_MOONCAKE_CONFIG_PATH", ""))).isTrue();
        assertThat(path.describe(literal("SGLANG_HICACHE_MOONCAKE_CONFIG_PATH", ""))).isEqualTo("env SGLANG_HICACHE_MOONCAKE_CONFIG_PATH");
    }

    @Test
    void aFlagIsNeverMatchedByValue() {
        assertThatThrownBy(() -> new WatchedKey(WatchedKey.Kind.FLAG, "--x", ReasonCode.KEY_OWNED, "c", Set.of("1")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WatchedKey.envWithValues("X", Set.of(), ReasonCode.CONFIG_SOURCE, "c"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
