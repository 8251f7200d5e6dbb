package io.kvcacheinjector.domain.flags;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FlagCatalogueTest {

    @Test
    void skipsCommentsAndBlankLinesAndKeepsEveryOption() {
        assertThat(FlagCatalogue.parse(List.of("# header", "--model", "", "  --dtype  ", "# --not-this", "--model")))
                .containsExactlyInAnyOrder("--model", "--dtype");
    }

    @Test
    void aGeneratedLineKeepsTheOptionAndChecksItsReleaseRange() {
        assertThat(FlagCatalogue.parse(List.of("--kv-canary 0.5.23..0.5.23", "--model")))
                .containsExactlyInAnyOrder("--kv-canary", "--model");
        assertThatThrownBy(() -> FlagCatalogue.parse(List.of("--model", "--kv-canary 0.5.23")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 2")
                .hasMessageContaining("first..last");
    }

    @Test
    void anOptionThatLeftAndCameBackHasOneRangePerRun() {
        assertThat(FlagCatalogue.parse(List.of("--disable-log-requests 0.11.0..0.11.0,0.33.0..0.33.0")))
                .containsExactly("--disable-log-requests");
        for (String bad : List.of("--x 0.11.0..0.11.0,", "--x 0.11.0..0.11.0,0.33.0", "--x ,0.1..0.2",
                "--x 0.1..0.2 0.3..0.4")) {
            assertThatThrownBy(() -> FlagCatalogue.parse(List.of(bad)))
                    .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("first..last");
        }
    }

    @Test
    void aLineThatIsNotALongOptionIsAPackagingErrorNamingTheLine() {
        assertThatThrownBy(() -> FlagCatalogue.parse(List.of("--model", "-tp")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 2").hasMessageContaining("-tp");
        assertThatThrownBy(() -> FlagCatalogue.parse(List.of("--a b")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FlagCatalogue.parse(List.of("# only comments")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no options");
    }

    @Test
    void aMissingResourceFailsLoudly() {
        assertThatThrownBy(() -> FlagCatalogue.load(FlagCatalogueTest.class, "no-such-flags.txt"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no-such-flags.txt");
    }
}
