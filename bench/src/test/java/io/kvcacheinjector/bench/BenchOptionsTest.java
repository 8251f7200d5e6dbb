package io.kvcacheinjector.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvcacheinjector.app.HelpDefaultsTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchOptionsTest {
    /** bench's share of app's HelpDefaultsTest: a default its help states is the one it uses. */
    @Test
    void givingAStatedDefaultExplicitlyChangesNothing() {
        List<HelpDefaultsTest.Stated> stated = HelpDefaultsTest.stated("bench",
                new CommandLine(new BenchCommand(System.out, System.err)));
        assertThat(stated).extracting(Object::toString).contains("bench --connections (default 16)")
                .hasSizeGreaterThanOrEqualTo(5);
        List<String> wrong = new ArrayList<>();
        for (HelpDefaultsTest.Stated s : stated) {
            String flag = s.option().longestName();
            List<String> base = flag.equals("--sample") ? List.of("--serve-process") : List.of();
            if (!BenchOptions.parse(HelpDefaultsTest.with(base, flag, s.value()))
                    .equals(BenchOptions.parse(base.toArray(String[]::new)))) {
                wrong.add(s.toString());
            }
        }
        assertThat(wrong).as("options whose help states a default bench does not use").isEmpty();
    }


    @Test
    void noFlagsMeansTheDocumentedDefaults() {
        BenchOptions o = BenchOptions.parse(new String[0]);
        assertThat(o).isEqualTo(BenchOptions.defaults());
        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(20));
        assertThat(o.connections()).isEqualTo(16);
        assertThat(o.rounds()).isEqualTo(20);
        assertThat(o.json()).isFalse();
    }

    @Test
    void theIssuesCommandLineIsUnderstood() {
        BenchOptions o = BenchOptions.parse(new String[] {"--duration", "20s", "--connections", "16", "--json"});
        assertThat(o.duration()).isEqualTo(Duration.ofSeconds(20));
        assertThat(o.connections()).isEqualTo(16);
        assertThat(o.json()).isTrue();
    }

    @Test
    void durationsTakeSecondsMillisecondsMinutesOrAPlainNumber() {
        BenchOptions o = BenchOptions.parse(new String[] {"--duration=2m", "--warmup", "1.5", "--max-warmup", "3s",
                "--round", "500ms"});
        assertThat(o.duration()).isEqualTo(Duration.ofMinutes(2));
        assertThat(o.warmup()).isEqualTo(Duration.ofMillis(1500));
        assertThat(o.warmupLimit()).isEqualTo(Duration.ofSeconds(3));
        assertThat(o.round()).isEqualTo(Duration.ofMillis(500));
        assertThat(o.rounds()).isEqualTo(240);
    }

    @Test
    void roundsAreEvenSoThatBothSidesGetAsMany() {
        BenchOptions o = BenchOptions.parse(new String[] {"--duration", "5s", "--round", "1s"});
        assertThat(o.rounds()).isEqualTo(4);
    }

    @Test
    void aMaximumWarmUpBelowTheMinimumIsTheMinimum() {
        BenchOptions o = BenchOptions.parse(new String[] {"--warmup", "30s", "--max-warmup", "5s"});
        assertThat(o.warmupLimit()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void badValuesAreRefusedWithTheFlagAndTheValue() {
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--duration", "soon"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--duration")
                .hasMessageContaining("\"soon\"").hasMessageContaining("20s");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--duration", "-3s"}))
                .hasMessageContaining("--duration");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--connections", "0"}))
                .hasMessageContaining("--connections must be 1..512, not 0");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--connections", "many"}))
                .hasMessageContaining("--connections must be a whole number");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--duration", "1s", "--round", "1s"}))
                .hasMessageContaining("at most half the duration");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--duration"}))
                .hasMessageContaining("--duration needs a value");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--json=yes"}))
                .hasMessageContaining("--json takes no value");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--threads", "4"}))
                .hasMessageContaining("unknown option --threads");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--duration", "2h"}))
                .hasMessageContaining("--duration");
    }

    @Test
    void theServeProcessModeTakesJvmOptionsAndASampleInterval() {
        BenchOptions o = BenchOptions.parse(new String[] {"--serve-process", "--jvm-options",
                " -Xmx130m  -XX:+UseSerialGC ", "--sample=250ms"});
        assertThat(o.serveProcess()).isTrue();
        assertThat(o.jvmOptions()).contains(java.util.List.of("-Xmx130m", "-XX:+UseSerialGC"));
        assertThat(o.sample()).isEqualTo(Duration.ofMillis(250));
        BenchOptions chart = BenchOptions.parse(new String[] {"--serve-process"});
        assertThat(chart.jvmOptions()).as("no --jvm-options: the chart's").isEmpty();
        assertThat(chart.sample()).isEqualTo(Duration.ofMillis(500));
        assertThat(BenchOptions.defaults().serveProcess()).isFalse();
    }

    @Test
    void jvmOptionsWithoutTheServeProcessOrThatAreNotOptionsAreRefusedWithTheFix() {
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--jvm-options", "-Xmx64m"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("add --serve-process");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--serve-process", "--jvm-options", "Xmx64m"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"Xmx64m\"")
                .hasMessageContaining("each starting with -");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--serve-process", "--jvm-options", "-jar x.jar"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not name -jar");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--serve-process", "--sample", "1ms"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--sample must be 10ms at least");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--serve-process=yes"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--serve-process takes no value");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--informers"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--informers is how the separate serve process reads the cluster; add"
                        + " --serve-process");
        assertThat(BenchOptions.parse(new String[] {"--serve-process", "--informers"}).informers()).isTrue();
        assertThat(BenchOptions.parse(new String[] {"--serve-process"}).informers()).isFalse();
    }
}
