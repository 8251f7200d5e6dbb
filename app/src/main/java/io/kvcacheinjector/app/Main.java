package io.kvcacheinjector.app;

import io.kvcacheinjector.app.bench.BenchCommand;
import io.kvcacheinjector.app.check.CheckCommand;
import io.kvcacheinjector.app.cli.Cli;
import io.kvcacheinjector.app.engines.EngineOptions;
import io.kvcacheinjector.app.offline.InjectCommand;
import io.kvcacheinjector.app.offline.ReviewCommand;
import io.kvcacheinjector.app.render.RenderEngineCommand;
import io.kvcacheinjector.app.serve.ServeCommand;
import io.kvcacheinjector.app.training.AotTrainingCommand;

import io.kvcacheinjector.app.engines.EngineFolders;
import io.kvcacheinjector.app.engines.EngineLoadException;
import io.kvcacheinjector.app.engines.LoadedEngine;
import io.kvcacheinjector.ports.spi.EngineInjector;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The command-line entry point: {@code serve}, {@code inject}, {@code review}, {@code check}, {@code render-engine},
 * {@code bench}, {@code aot-training} and {@code completion}, each with {@code --help}; {@code --version} on the top
 * command. The conventions are {@link Cli}'s; the reference is generated from these definitions
 * ({@code docs/reference/cli.md}, kept in sync by {@code CliReferenceTest}).
 */
@Command(name = "kvcache-injector", versionProvider = Main.Version.class, sortOptions = false,
        description = {"The kvcache and CacheBlend admission webhooks (serve) and the commands that answer, offline or"
                + " against your cluster, what they would do (inject, review, check, render-engine)."},
        commandListHeading = "%nCommands:%n",
        footer = {"", "Each command answers --help; reference: docs/reference/cli.md."})
public final class Main implements Callable<Integer>, Cli.Top {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Print this help and exit.")
    boolean help;

    @Option(names = {"-V", "--version"}, versionHelp = true, description = "Print the version of the jar, of the"
            + " engine SPI and of each engine in the engines folder, and exit.")
    boolean version;

    @Spec
    CommandLine.Model.CommandSpec spec;

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.in, System.out, System.err));
    }

    static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        if (args.length > 0 && (args[0].equals("inject") || args[0].equals("review"))) {
            // the offline commands print results and reasons only; informational logs would mix into stderr lines
            java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        }
        Map<String, String> env = System.getenv();
        Map<String, Supplier<Object>> commands = commands(in, out, err, env);
        Supplier<Object> one = args.length > 0 ? commands.get(args[0]) : null;
        if (one != null && args[0].equals("inject")) {
            // inject's start-up is most of its time: its YAML mappers and, unless the command line names other
            // folders, the engines are made on two more threads while picocli reads the command line
            Thread.ofPlatform().daemon().name("warm-up").start(InjectCommand::warmUp);
            if (Arrays.stream(args).noneMatch(a -> a.startsWith(EngineOptions.FLAG))) {
                EngineFolders.loadInBackground(List.of(EngineFolders.defaultFolder()));
            }
        }
        if (one != null) {
            // only the command asked for is built: picocli reads its definition by reflection, and inject's
            // start-up should not pay for the definitions of the others (docs/reference/cli.md, "Start-up")
            return Cli.execute(one.get(), Arrays.copyOfRange(args, 1, args.length), out, err);
        }
        CommandLine cl = commandLine(commands, out, err);
        int status = cl.execute(args);
        cl.getOut().flush();
        cl.getErr().flush();
        return status;
    }

    /** Each command by name, built on demand. */
    static Map<String, Supplier<Object>> commands(InputStream in, PrintStream out, PrintStream err,
                                                  Map<String, String> env) {
        Map<String, Supplier<Object>> m = new LinkedHashMap<>();
        m.put("serve", () -> new ServeCommand(env, out, err, null));
        m.put("inject", () -> new InjectCommand(in, out, err, env));
        m.put("review", () -> new ReviewCommand(in, out, err, env));
        m.put("check", () -> new CheckCommand(out, err, env));
        m.put("render-engine", () -> new RenderEngineCommand(in, out, err));
        m.put("bench", () -> new BenchCommand(out, err));
        m.put("aot-training", () -> new AotTrainingCommand(out, err));
        m.put("completion", () -> new Completion(out));
        return m;
    }

    /** The whole command tree, printing to out and err: for the top command's help, version and completion. */
    static CommandLine commandLine(InputStream in, PrintStream out, PrintStream err, Map<String, String> env) {
        return commandLine(commands(in, out, err, env), out, err);
    }

    private static CommandLine commandLine(Map<String, Supplier<Object>> commands, PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setCommandName(Cli.topName());
        commands.forEach((name, command) -> cl.addSubcommand(name, command.get()));
        Cli.configure(cl, out, err);
        return cl;
    }

    /** A bare invocation prints the help, as kubectl and helm do. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return Cli.OK;
    }

    /** {@code --version}: the jar, the engine SPI, and the engines of the engines folder. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return lines(EngineFolders.defaultFolder()).toArray(String[]::new);
        }

        static List<String> lines(Path folder) {
            List<String> lines = new ArrayList<>();
            String jar = Main.class.getPackage() == null ? null : Main.class.getPackage().getImplementationVersion();
            lines.add("kvcache-injector " + (jar == null ? "(not a built jar: run from classes)" : jar));
            lines.add("engine SPI " + EngineInjector.SPI_VERSION);
            try {
                List<LoadedEngine> engines = EngineFolders.load(List.of(folder)).details();
                lines.add("engines in " + folder + ":");
                for (LoadedEngine e : engines) {
                    lines.add("  " + e.engine().id() + " " + e.engine().version() + " (built against SPI "
                            + EngineFolders.spiVersionOf(e) + ", " + e.jar().getFileName() + ")");
                }
            } catch (EngineLoadException e) {
                lines.add("engines: none loaded: " + Cli.oneLine(e.getMessage()));
            }
            return lines;
        }
    }

    /** {@code completion bash|zsh}: the shell completion script picocli generates from these definitions. */
    @Command(name = "completion", description = {"Prints the completion script for bash or zsh. Install with"
            + " `source <(kvcache-injector completion bash)` (or zsh) in your shell's rc file."},
            exitCodeListHeading = "%nExit status:%n",
            exitCodeList = {"0:the script on stdout", "2:bad usage (a shell other than bash or zsh)"})
    static final class Completion implements Callable<Integer> {
        @Parameters(paramLabel = "SHELL", description = "bash or zsh.")
        String shell;

        @CommandLine.Mixin
        Cli.Help help = new Cli.Help();

        @Spec
        CommandLine.Model.CommandSpec spec;

        private final PrintStream out;

        Completion(PrintStream out) {
            this.out = out;
        }

        @Override
        public Integer call() {
            if (!shell.equals("bash") && !shell.equals("zsh")) {
                spec.commandLine().getErr().println("completion: the shell must be bash or zsh, not \"" + shell
                        + "\"");
                return Cli.USAGE;
            }
            CommandLine root = commandLine(InputStream.nullInputStream(), out, System.err, Map.of());
            String script = AutoComplete.bash(root.getCommandName().replace(' ', '-'), root);
            if (shell.equals("zsh")) {
                // picocli's script runs in zsh through bashcompinit
                out.println("autoload -U +X compinit && compinit");
                out.println("autoload -U +X bashcompinit && bashcompinit");
            }
            out.print(script);
            out.flush();
            return Cli.OK;
        }
    }
}
