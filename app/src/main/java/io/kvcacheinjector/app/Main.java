package io.kvcacheinjector.app;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** The command-line entry point: {@code serve}, {@code inject}, {@code review}, {@code bench}. */
public final class Main {

    /** One sub-command. Returns the process exit status. */
    @FunctionalInterface
    public interface Command {
        int run(String[] args) throws Exception;
    }

    private Main() {
    }

    static Map<String, Command> commands() {
        Map<String, Command> m = new LinkedHashMap<>();
        m.put("serve", ServeCommand::run);
        m.put("inject", InjectCommand::run);
        m.put("review", ReviewCommand::run);
        m.put("bench", BenchCommand::run);
        m.put("render-engine", RenderEngineCommand::run);
        m.put("check", CheckCommand::run);
        m.put("aot-training", AotTrainingCommand::run);
        return m;
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.err));
    }

    static int run(String[] args, PrintStream err) throws Exception {
        Map<String, Command> commands = commands();
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            usage(err, commands);
            return args.length == 0 ? 1 : 0;
        }
        Command c = commands.get(args[0]);
        if (args[0].equals("inject") || args[0].equals("review")) {
            // the offline commands print results and reasons only; informational logs would mix into stderr lines
            java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        }
        if (c == null) {
            err.println("unknown command \"" + args[0] + "\"");
            usage(err, commands);
            return 1;
        }
        return c.run(Arrays.copyOfRange(args, 1, args.length));
    }

    private static void usage(PrintStream err, Map<String, Command> commands) {
        err.println("usage: java -jar kvcache-injector.jar <command> [options]");
        err.println("commands: " + String.join(", ", commands.keySet()));
        err.println("  serve  [--cluster DIR] [--port 8443] [--tls-cert PEM --tls-key PEM] [--tls-ca-out FILE] ...");
        err.println("  inject --cluster DIR -f FILE|- [--namespace NS]");
        err.println("  review --cluster DIR --webhook kvcache/mutate|kvcache/validate|cacheblend/mutate  < review.json");
        err.println("  bench  [--duration 20s] [--connections 16] [--json]");
        err.println("  aot-training [--engines-dir DIR]   the AOT cache's training run (deploy/aot-cache.sh)");
        err.println("every command: --engines-dir DIR[,DIR...]  the engines folders (default: engines/ beside the jar)");
    }
}
