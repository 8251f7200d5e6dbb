package io.kvcacheinjector.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.ports.spi.EngineInjector;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The conventions every command shares (docs/reference/cli.md, "Conventions"), through the entry point. */
class CliConventionsTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"serve", "inject", "review", "check", "render-engine", "completion"})
    void everyCommandAnswersHelpOnStdoutWithExitZero(String command) {
        assertThat(run(command, "--help")).isZero();
        assertThat(out()).startsWith("Usage: kvcache-injector " + command).contains("Exit status:");
        assertThat(err()).isEmpty();
        out.reset();
        assertThat(run(command, "-h")).isZero();
        assertThat(out()).startsWith("Usage: kvcache-injector " + command);
    }

    @Test
    void theTopCommandAndABareInvocationPrintTheHelpWithEveryCommand() {
        assertThat(run()).isZero();
        assertThat(out()).startsWith("Usage: kvcache-injector").contains("inject", "review", "check",
                "render-engine", "completion", "serve").doesNotContain("bench", "aot-training");
        assertThat(err()).isEmpty();
        out.reset();
        assertThat(run("--help")).isZero();
        assertThat(out()).startsWith("Usage: kvcache-injector");
    }

    /** The shipped jar holds neither tool (issue 30): named, each says where it is, as a usage error. */
    @ParameterizedTest
    @ValueSource(strings = {"bench", "aot-training"})
    void theToolsOfTheCheckoutSayWhereTheyAre(String command) {
        assertThat(run(command, "--duration", "1s")).isEqualTo(2);
        assertThat(err()).startsWith("kvcache-injector: " + command + " is not in this jar: ")
                .contains(command.equals("bench") ? "bin/kvcache-injector bench" : "deploy/Dockerfile");
        assertThat(out()).isEmpty();
    }

    @Test
    void versionNamesTheJarTheSpiAndEachEngineOfTheFolder() {
        Path engines = Path.of("target", "engines");
        String lines = String.join("\n", Main.Version.lines(engines));
        assertThat(lines).startsWith("kvcache-injector ").contains("engine SPI " + EngineInjector.SPI_VERSION)
                .contains("engines in " + engines + ":").containsPattern("(?m)^  vllm \\S+ \\(built against SPI "
                        + EngineInjector.SPI_VERSION.replace(".", "\\.") + ", ");
        assertThat(String.join("\n", Main.Version.lines(Path.of("target", "no-such-folder"))))
                .contains("engines: none loaded: engines folder").contains("no-such-folder");
        assertThat(run("--version")).isZero();
        assertThat(out()).contains("engine SPI " + EngineInjector.SPI_VERSION);
    }

    @Test
    void versionListsTheEnginesOfTheFoldersItIsGiven() {
        assertThat(run("--version", "--engines-dir", "target/engines")).isZero();
        assertThat(out()).contains("engines in target/engines:").containsPattern("(?m)^  sglang \\S+ ");
        out.reset();
        assertThat(run("--engines-dir", "target/no-such-folder", "-V")).isZero();
        assertThat(out()).contains("engines: none loaded: engines folder").contains("no-such-folder");
        out.reset();
        assertThat(run("--version", "--engines-dir", " ")).isEqualTo(2);
        assertThat(err()).startsWith("kvcache-injector: --engines-dir needs a folder").hasLineCount(1);
        assertThat(out()).isEmpty();
    }

    @Test
    void theTopCommandsEnginesDirBeforeACommandIsRefusedNamingWhereItGoes() {
        assertThat(run("--engines-dir", "target/engines", "inject", "-f", "x.yaml")).isEqualTo(2);
        assertThat(err()).startsWith("kvcache-injector: --engines-dir before the command's name is not the"
                + " command's; give it after the command's name: kvcache-injector inject --engines-dir DIR")
                .hasLineCount(1);
        assertThat(out()).isEmpty();
        err.reset();
        assertThat(run("--engines-dir", "target/engines", "completion", "bash")).isEqualTo(2);
        assertThat(err()).contains("completion takes none").hasLineCount(1);
        err.reset();
        assertThat(run("--engines-dir", "target/engines")).isEqualTo(2);
        assertThat(err()).contains("it only goes with --version");
    }

    @Test
    void aMistypedOptionIsOneLineWithTheClosestSpellingAndExitTwo() {
        assertThat(run("inject", "--clustr", "docs", "-f", "x.yaml")).isEqualTo(2);
        assertThat(err()).isEqualTo("inject: unknown option --clustr; did you mean --cluster? (see `kvcache-injector"
                + " inject --help`)" + System.lineSeparator());
        assertThat(out()).isEmpty();
    }

    @Test
    void aMistypedCommandIsOneLineWithTheClosestSpellingAndExitTwo() {
        assertThat(run("injct", "-f", "x.yaml")).isEqualTo(2);
        assertThat(err()).startsWith("kvcache-injector: unknown command \"injct\"; did you mean inject?")
                .hasLineCount(1);
    }

    @Test
    void aMissingValueOrRequiredOptionIsOneLineNamingIt() {
        assertThat(run("render-engine", "-f")).isEqualTo(2);
        assertThat(err()).startsWith("render-engine: -f needs a value").hasLineCount(1);
        err.reset();
        assertThat(run("review", "--cluster", "x")).isEqualTo(2);
        assertThat(err()).startsWith("review: --webhook is required").hasLineCount(1);
    }

    @Test
    void completionIsGeneratedForBashAndZshFromTheDefinitions() {
        assertThat(run("completion", "bash")).isZero();
        assertThat(out()).contains("complete -F").contains("--cluster").contains("render-engine")
                .contains("--reconcile-cacheblend");
        out.reset();
        assertThat(run("completion", "zsh")).isZero();
        assertThat(out()).startsWith("autoload -U +X compinit").contains("bashcompinit").contains("complete -F");
        out.reset();
        assertThat(run("completion", "fish")).isEqualTo(2);
        assertThat(err()).contains("bash or zsh");
    }
}
