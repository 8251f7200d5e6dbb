package io.kvcacheinjector.app;

import io.kvcacheinjector.adapters.http.server.TlsProfile;
import io.kvcacheinjector.app.check.CheckCommand;
import io.kvcacheinjector.app.cli.Cli;
import io.kvcacheinjector.app.engines.EngineOptions;
import io.kvcacheinjector.app.offline.InjectCommand;
import io.kvcacheinjector.app.offline.ReviewCommand;
import io.kvcacheinjector.app.render.RenderEngineCommand;
import io.kvcacheinjector.app.serve.ServeCommand;

import io.kvcacheinjector.app.engines.EngineFolders;
import io.kvcacheinjector.app.engines.EngineLoadException;
import io.kvcacheinjector.app.engines.LoadedEngine;
import io.kvcacheinjector.ports.spi.EngineInjector;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The command-line entry point: {@code serve}, {@code inject}, {@code review}, {@code check}, {@code render-engine}
 * and {@code completion}, each with {@code --help}; {@code --version} on the top command. {@code bench} and
 * {@code aot-training} are not in this jar (the modules bench and aot-training of the source checkout, issue 30): named
 * here, they get one line saying where they are ({@link #NOT_HERE}). The conventions are {@link Cli}'s; the reference is generated from these definitions
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
            + " engine SPI and of each engine in the engines folders, and exit.")
    boolean version;

    @Option(names = EngineOptions.FLAG, paramLabel = "DIR[,DIR...]", description = "With --version: the engines"
            + " folders whose engines it lists (default: engines/ beside the jar). A command takes its own, after"
            + " its name.")
    String enginesDir;

    @Spec
    CommandLine.Model.CommandSpec spec;

    private Main() {
    }

    public static void main(String[] args) {
        // before any TLS class is used: JSSE reads it once (docs/explanation/decisions.md, "The TLS profile")
        TlsProfile.rejectClientRenegotiation();
        System.exit(run(args, System.in, System.out, System.err));
    }

    static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        String name = args.length > 0 ? args[0] : "";
        if (name.equals("inject") || name.equals("review")) {
            // the offline commands print results and reasons only; informational logs would mix into stderr lines
            java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        }
        String elsewhere = NOT_HERE.get(name);
        if (elsewhere != null) {
            err.println(Cli.topName() + ": " + name + " is not in this jar: " + elsewhere);
            return Cli.USAGE;
        }
        Map<String, String> env = System.getenv();
        Object one = command(name, in, out, err, env);
        if (one instanceof InjectCommand) {
            // inject's start-up is most of its time: its YAML mappers and, unless the command line names other
            // folders, the engines are made on two more threads while picocli reads the command line
            Thread warmUp = new Thread(new InjectWarmUp(), "warm-up");
            warmUp.setDaemon(true);
            warmUp.start();
            if (!namesEnginesDir(args)) {
                EngineFolders.loadInBackground(List.of(EngineFolders.defaultFolder()));
            }
        }
        if (one != null) {
            // only the command asked for is built: picocli reads its definition by reflection, and inject's start-up
            // should not pay for the definitions of the others (docs/explanation/decisions.md, "picocli's start-up
            // cost")
            return Cli.execute(one, Arrays.copyOfRange(args, 1, args.length), out, err);
        }
        CommandLine cl = commandLine(in, out, err, env);
        cl.setExecutionStrategy(new TopOnlyWithVersion());
        int status = cl.execute(args);
        cl.getOut().flush();
        cl.getErr().flush();
        return status;
    }

    /*
     * The path to one command has no lambda, method reference or stream: each is linked on first use, and on a cold
     * JVM that linking was a measurable share of inject's start-up (docs/explanation/performance-log.md, "inject's
     * start-up after picocli (issue 23)").
     */

    /** {@link InjectCommand#warmUp} on the warm-up thread. */
    private static final class InjectWarmUp implements Runnable {
        @Override
        public void run() {
            InjectCommand.warmUp();
        }
    }

    private static boolean namesEnginesDir(String[] args) {
        for (String a : args) {
            if (a.startsWith(EngineOptions.FLAG)) {
                return true;
            }
        }
        return false;
    }

    /** The commands, in the order the help lists them. */
    static final List<String> COMMANDS = List.of("serve", "inject", "review", "check", "render-engine", "completion");

    /**
     * The commands of the source checkout's tool modules, which the shipped jar and the image do not hold (issue 30,
     * docs/explanation/decisions.md "What the shipped jar holds"), and where each is.
     */
    static final Map<String, String> NOT_HERE = Map.of(
            "bench", "it is a tool of the source checkout (the bench module): run bin/kvcache-injector bench there"
                    + " (docs/explanation/performance.md)",
            "aot-training", "it is the AOT cache's training run, which only the image build (deploy/Dockerfile)"
                    + " and bin/aot-cache run, from the aot-training module of the source checkout");

    /** The command called {@code name}, or null if there is none. */
    static Object command(String name, InputStream in, PrintStream out, PrintStream err, Map<String, String> env) {
        return switch (name) {
            case "serve" -> new ServeCommand(env, out, err, null);
            case "inject" -> new InjectCommand(in, out, err, env);
            case "review" -> new ReviewCommand(in, out, err, env);
            case "check" -> new CheckCommand(out, err, env);
            case "render-engine" -> new RenderEngineCommand(in, out, err);
            case "completion" -> new Completion(out);
            default -> null;
        };
    }

    /** The whole command tree, printing to out and err: for the top command's help, version and completion. */
    static CommandLine commandLine(InputStream in, PrintStream out, PrintStream err, Map<String, String> env) {
        CommandLine cl = new CommandLine(new Main());
        cl.setCommandName(Cli.topName());
        for (String name : COMMANDS) {
            cl.addSubcommand(name, command(name, in, out, err, env));
        }
        Cli.configure(cl, out, err);
        return cl;
    }

    /**
     * The top command's {@code --engines-dir} belongs to {@code --version}: given before a command's name it would
     * otherwise be dropped without a word, and the command would load the default engines.
     */
    private static final class TopOnlyWithVersion implements CommandLine.IExecutionStrategy {
        @Override
        public int execute(CommandLine.ParseResult parsed) {
            if (parsed.hasMatchedOption(EngineOptions.FLAG) && !parsed.isVersionHelpRequested()
                    && !parsed.isUsageHelpRequested()) {
                CommandLine.Model.CommandSpec sub = parsed.hasSubcommand() ? parsed.subcommand().commandSpec() : null;
                String where = sub == null ? "it only goes with --version, or after a command's name"
                        : sub.findOption(EngineOptions.FLAG) == null ? sub.name() + " takes none"
                        : "give it after the command's name: " + Cli.topName() + " " + sub.name() + " "
                        + EngineOptions.FLAG + " DIR";
                throw new CommandLine.ParameterException(parsed.commandSpec().commandLine(),
                        EngineOptions.FLAG + " before the command's name is not the command's; " + where);
            }
            if (parsed.isVersionHelpRequested()) {
                try {
                    ((Main) parsed.commandSpec().userObject()).versionFolders();
                } catch (IllegalArgumentException e) {
                    throw new CommandLine.ParameterException(parsed.commandSpec().commandLine(), e.getMessage());
                }
            }
            return new CommandLine.RunLast().execute(parsed);
        }
    }

    /** The folders {@code --version} lists: those of the top command's {@code --engines-dir}, or the default. */
    List<Path> versionFolders() {
        EngineOptions engines = new EngineOptions();
        engines.value = enginesDir;
        return engines.folders();
    }

    /** A bare invocation prints the help, as kubectl and helm do. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return Cli.OK;
    }

    /** {@code --version}: the jar, the engine SPI, and the engines of the engines folder. */
    static final class Version implements CommandLine.IVersionProvider {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public String[] getVersion() {
            // the folders were checked by TopOnlyWithVersion, where a mistake is a usage error
            return lines(((Main) spec.userObject()).versionFolders()).toArray(String[]::new);
        }

        static List<String> lines(Path folder) {
            return lines(List.of(folder));
        }

        static List<String> lines(List<Path> folders) {
            List<String> lines = new ArrayList<>();
            String jar = Main.class.getPackage() == null ? null : Main.class.getPackage().getImplementationVersion();
            lines.add("kvcache-injector " + (jar == null ? "(not a built jar: run from classes)" : jar));
            lines.add("engine SPI " + EngineInjector.SPI_VERSION);
            try {
                List<LoadedEngine> engines = EngineFolders.load(folders).details();
                lines.add("engines in " + String.join(",", folders.stream().map(Path::toString).toList()) + ":");
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
