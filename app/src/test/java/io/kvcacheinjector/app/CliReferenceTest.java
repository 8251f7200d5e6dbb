package io.kvcacheinjector.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Keeps {@code docs/reference/cli.md} equal to the command definitions: each command's usage (between the markers
 * of its section) and the exit-status table, generated from the picocli definitions the jar runs. Run with
 * {@code -Ddocs.update=true} to regenerate: {@value #REGENERATE}.
 */
public class CliReferenceTest {
    static final String REGENERATE = "bin/mvn -o -pl app -am verify -Dtest=CliReferenceTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Ddocs.update=true";
    private static final Path PAGE = Path.of("..", "docs", "reference", "cli.md");
    static final String END = "<!-- END GENERATED -->\n";

    static String begin(String what) {
        return "<!-- BEGIN GENERATED " + what + " from the command definitions (regenerate: " + REGENERATE + ") -->\n";
    }

    static CommandLine tree() {
        PrintStream discard = new PrintStream(PrintStream.nullOutputStream());
        return Main.commandLine(InputStream.nullInputStream(), discard, discard, Map.of());
    }

    static String usage(CommandLine cl) {
        return "```\n" + cl.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing() + "\n```\n";
    }

    /** One row per command: what each exit status means for it. */
    static String exitTable(CommandLine top) {
        StringBuilder b = new StringBuilder("| Command | 0 | 1 | 2 |\n|---|---|---|---|\n");
        top.getSubcommands().forEach((name, cl) -> {
            Map<String, String> codes = cl.getCommandSpec().usageMessage().exitCodeList();
            b.append("| `").append(name).append("` |");
            for (String code : new String[] {"0", "1", "2"}) {
                b.append(' ').append(codes.getOrDefault(code, "—").replace("|", "\\|")).append(" |");
            }
            b.append('\n');
        });
        return b.toString();
    }

    static String regenerate(String page) {
        CommandLine top = tree();
        String result = replace(page, "exit-status table", exitTable(top));
        result = replace(result, "usage of kvcache-injector", usage(top));
        for (Map.Entry<String, CommandLine> sub : top.getSubcommands().entrySet()) {
            result = replace(result, "usage of " + sub.getKey(), usage(sub.getValue()));
        }
        return result;
    }

    private static String replace(String page, String what, String generated) {
        String begin = begin(what);
        int b = page.indexOf(begin);
        int e = page.indexOf(END, Math.max(b, 0));
        assertThat(b).as("docs/reference/cli.md has the markers of the %s", what).isGreaterThanOrEqualTo(0);
        assertThat(e).isGreaterThan(b);
        return page.substring(0, b) + begin + generated + END + page.substring(e + END.length());
    }

    /**
     * The section {@code usage of <name>} of the page generated from {@code command} (a command of a tool module,
     * which the shipped jar's tree does not hold: bench, aot-training), regenerated with {@code -Ddocs.update=true}.
     */
    public static void assertSectionIsGenerated(String name, Object command) throws IOException {
        PrintStream discard = new PrintStream(PrintStream.nullOutputStream());
        CommandLine cl = new CommandLine(command);
        cl.setCommandName(io.kvcacheinjector.app.cli.Cli.topName() + " " + name);
        io.kvcacheinjector.app.cli.Cli.configure(cl, discard, discard);
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        String expected = replace(page, "usage of " + name, usage(cl));
        if (Boolean.getBoolean("docs.update")) {
            Files.writeString(PAGE, expected, StandardCharsets.UTF_8);
            page = expected;
        }
        assertThat(page).as("docs/reference/cli.md is stale for %s; regenerate it with -Ddocs.update=true", name)
                .isEqualTo(expected);
    }

    @Test
    void theCliReferenceIsGeneratedFromTheCommandDefinitions() throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        String expected = regenerate(page);
        if (Boolean.getBoolean("docs.update")) {
            Files.writeString(PAGE, expected, StandardCharsets.UTF_8);
            page = expected;
        }
        assertThat(page).as("docs/reference/cli.md is stale; regenerate it: " + REGENERATE).isEqualTo(expected);
    }

    @Test
    void everyCommandStatesWhatEachOfItsExitStatusesMeans() {
        tree().getSubcommands().forEach((name, cl) -> assertThat(cl.getCommandSpec().usageMessage().exitCodeList())
                .as(name).containsKey("0").containsKey("2"));
    }
}
