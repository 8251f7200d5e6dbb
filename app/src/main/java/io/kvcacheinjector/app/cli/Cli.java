package io.kvcacheinjector.app.cli;


import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * The conventions every command shares (docs/reference/cli.md, "Exit status"): {@value #OK} success, {@value #NO}
 * the command's negative answer (a refusal, an error finding, invalid numbers, a server that could not start),
 * {@value #USAGE} bad usage or an input that cannot be read; help on stdout with exit 0; a command-line mistake is one
 * line on stderr naming it, with the closest valid spelling when there is one.
 */
public final class Cli {
    public static final int OK = 0;
    public static final int NO = 1;
    public static final int USAGE = 2;
    /** The name the usage shows; the kubectl plugin launcher sets it to {@code kubectl kvcache}. */
    static final String NAME_VARIABLE = "KVCACHE_INJECTOR_COMMAND_NAME";
    static final int WIDTH = 100;

    private Cli() {
    }

    /** The top command ({@code io.kvcacheinjector.app.Main}): its usage and error lines carry no sub-command name. */
    public interface Top {
    }

    /** {@code command} (a picocli {@code @Command}) set up with the shared conventions, printing to out and err. */
    static CommandLine commandLine(Object command, PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(command);
        if (!(command instanceof Top)) {
            cl.setCommandName(topName() + " " + cl.getCommandName()); // as the usage shows it in the full tree
        }
        configure(cl, out, err);
        return cl;
    }

    /** The shared conventions on {@code cl}: streams, last-one-wins options, one-line usage errors. */
    public static CommandLine configure(CommandLine cl, PrintStream out, PrintStream err) {
        cl.setOut(new PrintWriter(new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8), true));
        cl.setErr(new PrintWriter(new java.io.OutputStreamWriter(err, StandardCharsets.UTF_8), true));
        cl.setOverwrittenOptionsAllowed(true); // as the hand-written parser did: the last value given counts
        cl.setUsageHelpWidth(WIDTH);
        // handler classes rather than lambdas: a lambda is linked on first use, which a cold JVM pays for in
        // inject's start-up (Main)
        cl.setParameterExceptionHandler(new UsageError());
        cl.setExecutionExceptionHandler(new Failure());
        return cl;
    }

    /** A command-line mistake: one line naming it, exit {@value #USAGE}. */
    private static final class UsageError implements CommandLine.IParameterExceptionHandler {
        @Override
        public int handleParseException(ParameterException e, String[] args) {
            return usageError(e, args);
        }
    }

    /** An exception out of a command: one line with its type and message, exit {@value #NO}. */
    private static final class Failure implements CommandLine.IExecutionExceptionHandler {
        @Override
        public int handleExecutionException(Exception e, CommandLine commandLine, CommandLine.ParseResult parsed) {
            commandLine.getErr().println(name(commandLine) + ": " + oneLine(e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage())));
            commandLine.getErr().flush();
            return NO;
        }
    }

    /** Parses and runs {@code command} with {@code args}; the exit status. */
    public static int execute(Object command, String[] args, PrintStream out, PrintStream err) {
        CommandLine cl = commandLine(command, out, err);
        int status = cl.execute(args);
        cl.getOut().flush();
        cl.getErr().flush();
        out.flush();
        err.flush();
        return status;
    }

    private static int usageError(ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        cl.getErr().println(name(cl) + ": " + message(e) + " (see `" + fullName(cl) + " --help`)");
        cl.getErr().flush();
        return USAGE;
    }

    /** The command's own name as the error lines start: {@code inject}, or the top command's. */
    static String name(CommandLine cl) {
        if (cl.getCommandSpec().userObject() instanceof Top) {
            return topName();
        }
        String n = cl.getCommandName();
        return n.substring(n.lastIndexOf(' ') + 1);
    }

    static String fullName(CommandLine cl) {
        return cl.getCommandSpec().userObject() instanceof Top ? topName() : topName() + " " + name(cl);
    }

    /** {@code kvcache-injector}, or what {@value #NAME_VARIABLE} says. */
    public static String topName() {
        String n = System.getenv(NAME_VARIABLE);
        return n == null || n.isBlank() ? "kvcache-injector" : n.trim();
    }

    /** A picocli parse error as one line in this project's words, with the closest valid spelling if any. */
    static String message(ParameterException e) {
        if (e instanceof CommandLine.UnmatchedArgumentException u) {
            List<String> unmatched = u.getUnmatched();
            String first = unmatched.isEmpty() ? "" : unmatched.get(0);
            List<String> suggestions = u.getSuggestions();
            String hint = suggestions.isEmpty() ? "" : "; did you mean " + suggestions.get(0) + "?";
            boolean subcommands = !e.getCommandLine().getSubcommands().isEmpty();
            if (first.startsWith("-")) {
                int eq = first.indexOf('=');
                return "unknown option " + (first.startsWith("--") && eq > 0 ? first.substring(0, eq) : first) + hint;
            }
            return (subcommands ? "unknown command \"" : "unexpected argument \"") + first + "\"" + hint;
        }
        java.util.regex.Matcher switchValue = SWITCH_VALUE.matcher(String.valueOf(e.getMessage()));
        if (e instanceof CommandLine.MaxValuesExceededException && switchValue.lookingAt()) {
            return switchValue.group(1) + " takes no value";
        }
        List<String> unmatched = e.getCommandLine().getUnmatchedArguments();
        if (!(e instanceof CommandLine.UnmatchedArgumentException) && !unmatched.isEmpty()) {
            // picocli reports a missing required option before an unknown one; the unknown one is the mistake
            return message(new CommandLine.UnmatchedArgumentException(e.getCommandLine(), unmatched));
        }
        String m = String.valueOf(e.getMessage());
        java.util.regex.Matcher named = MISSING_VALUE.matcher(m);
        if (e instanceof CommandLine.MissingParameterException && named.lookingAt()) {
            return named.group(1) + " needs a value";
        }
        if (e instanceof CommandLine.MissingParameterException missing && !missing.getMissing().isEmpty()
                && missing.getMissing().get(0) instanceof OptionSpec o) {
            return o.longestName() + " is required";
        }
        return oneLine(m);
    }

    /** picocli's words for a switch given a value. */
    static final java.util.regex.Pattern SWITCH_VALUE = java.util.regex.Pattern.compile(
            "option '([^']+)' should be specified without");
    /** picocli's words for an option given without its value. */
    static final java.util.regex.Pattern MISSING_VALUE = java.util.regex.Pattern.compile(
            "(?:Missing required parameter for option|Expected parameter for option) '([^']+)'");

    /**
     * The bytes of {@code file}, or of {@code in} when it is {@code -}; null, after one line on {@code err} naming the
     * file and why ({@code command: cannot read FILE: ...}), when it cannot be read (exit {@value #USAGE}).
     */
    public static byte[] readInput(String command, String file, InputStream in, PrintStream err) {
        try {
            return file.equals("-") ? in.readAllBytes() : Files.readAllBytes(Path.of(file));
        } catch (IOException e) {
            err.println(command + ": cannot read " + file + ": " + e.getMessage());
            return null;
        }
    }

    public static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s*\\R\\s*", " ").strip();
    }

    /** A {@code -h}/{@code --help} option for a sub-command (the top command also has {@code --version}). */
    public static final class Help {
        @CommandLine.Option(names = {"-h", "--help"}, usageHelp = true, description = "Print this help and exit.")
        boolean help;
    }

    /**
     * {@code args} parsed into {@code flags} (a plain {@code @Command}), a parse error as an
     * {@link IllegalArgumentException} in {@link #message}'s words; for the option records that tests build directly.
     */
    public static <T> T parse(T flags, String[] args) {
        try {
            CommandLine cl = new CommandLine(flags);
            cl.setOverwrittenOptionsAllowed(true);
            cl.parseArgs(args);
            return flags;
        } catch (ParameterException e) {
            throw new IllegalArgumentException(message(e), e);
        }
    }
}
