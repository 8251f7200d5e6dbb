package io.kvcacheinjector.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.app.serve.ServeOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every default the help states as a value — "(default 8443; …)", "(default `gpustack-system`)" — is the default the
 * command really uses: giving that value explicitly must change nothing. The help texts are written by hand beside
 * each option, so this is what keeps them true (docs/explanation/decisions.md, "Defaults in the help").
 */
public class HelpDefaultsTest {
    /** A stated value: not a sentence ("default: its current context") nor another flag or a variable. */
    private static final Pattern STATED = Pattern.compile("\\(default `?([^\\s:;,`)$-][^\\s;,`)]*)`?[;,)]");
    private static final Path EXAMPLES = Path.of("..", "docs", "examples");

    /** One option whose help states its default; also for the tool modules' commands (bench). */
    public record Stated(String command, OptionSpec option, String value) {
        @Override
        public String toString() {
            return command + " " + option.longestName() + " (default " + value + ")";
        }
    }

    static List<Stated> stated() {
        List<Stated> all = new ArrayList<>();
        CommandLine tree = Main.commandLine(InputStream.nullInputStream(), System.out, System.err, Map.of());
        tree.getSubcommands().forEach((name, cl) -> all.addAll(stated(name, cl)));
        return all;
    }

    /** The options of {@code cl} whose help states a default. */
    public static List<Stated> stated(String name, CommandLine cl) {
        List<Stated> all = new ArrayList<>();
        for (OptionSpec o : cl.getCommandSpec().options()) {
            Matcher m = STATED.matcher(String.join(" ", o.description()));
            if (m.find()) {
                all.add(new Stated(name, o, m.group(1)));
            }
        }
        return all;
    }

    @Test
    void theHelpStatesDefaultsForTheOptionsUsersTuneMost() {
        // so that the test below cannot pass by finding nothing
        assertThat(stated()).extracting(Stated::toString).contains("serve --port (default 8443)",
                "serve --shutdown-delay (default 5s)",
                "inject --settings-namespace (default gpustack-system)", "check --output (default text)",
                "render-engine --namespace (default default)").hasSizeGreaterThanOrEqualTo(10);
    }

    @Test
    void givingAStatedDefaultExplicitlyChangesNothing() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (Stated s : stated()) {
            String flag = s.option().longestName();
            boolean same = switch (s.command()) {
                case "serve" -> {
                    // the lease flags apply to the controller only
                    List<String> base = flag.startsWith("--leader-election") ? List.of("--reconcile-cacheblend")
                            : List.of();
                    Map<String, String> env = Map.of("POD_NAME", "help-defaults");
                    yield ServeOptions.parse(with(base, flag, s.value()), env)
                            .equals(ServeOptions.parse(base.toArray(String[]::new), env));
                }
                case "inject" -> sameOutput(List.of("inject", "--cluster", EXAMPLES.resolve("cluster").toString(),
                        "-f", EXAMPLES.resolve("pods").resolve("vllm.yaml").toString()), flag, s.value(), null);
                case "review" -> sameOutput(List.of("review", "--cluster", EXAMPLES.resolve("cluster").toString(),
                        "--webhook", "kvcache/mutate"), flag, s.value(),
                        Files.readAllBytes(EXAMPLES.resolve("reviews").resolve("vllm-create.json")));
                case "render-engine" -> sameOutput(List.of("render-engine", "-f",
                        EXAMPLES.resolve("cacheblend").resolve("engine.yaml").toString()), flag, s.value(), null);
                // a command whose run needs a live cluster: its option's own initial value is the default
                default -> s.value().equals(String.valueOf((Object) s.option().initialValue()));
            };
            if (!same) {
                wrong.add(s.toString());
            }
        }
        assertThat(wrong).as("options whose help states a default the command does not use").isEmpty();
    }

    /** {@code base} followed by {@code flag value}. */
    public static String[] with(List<String> base, String flag, String value) {
        List<String> args = new ArrayList<>(base);
        args.add(flag);
        args.add(value);
        return args.toArray(String[]::new);
    }

    /** Exit status, stdout and stderr of {@code args}, with and without {@code flag value}, are the same. */
    private static boolean sameOutput(List<String> args, String flag, String value, byte[] stdin) {
        List<String> explicit = new ArrayList<>(args);
        explicit.add(flag);
        explicit.add(value);
        String without = run(args, stdin);
        assertThat(without).as("%s runs", args).startsWith("exit 0");
        return without.equals(run(explicit, stdin));
    }

    private static String run(List<String> args, byte[] stdin) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(args.toArray(String[]::new), new ByteArrayInputStream(stdin == null ? new byte[0] : stdin),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return "exit " + status + "\n" + out.toString(StandardCharsets.UTF_8) + "\n--\n"
                + err.toString(StandardCharsets.UTF_8);
    }
}
