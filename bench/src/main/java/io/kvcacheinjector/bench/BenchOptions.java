package io.kvcacheinjector.bench;

import io.kvcacheinjector.app.engines.EngineOptions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * How one {@code bench} run measures.
 *
 * @param duration    the measured time of both sides together (each side gets half), split into rounds
 * @param warmup      the least time driven before measuring (alternating too), not counted
 * @param maxWarmup   the most: past {@code warmup}, the warm-up goes on until the JIT compilers are quiet (see
 *                    {@link AdmissionBench}), but not beyond this
 * @param round       the length of one round; the sides alternate every round
 * @param connections the keep-alive connections the client drives each side with, one request in flight on each
 * @param json        print the report as one JSON object instead of a table
 * @param enginesDir  {@code --engines-dir DIR[,DIR…]}, the engines folders, as given; empty: {@code engines/} beside
 *                    the jar
 * @param serveProcess {@code --serve-process}: measure a separate {@code serve} process instead of the two servers in
 *                    this one ({@link ServeUnderLoad})
 * @param jvmOptions  {@code --jvm-options "..."}: that process's JVM options, split at spaces; empty: the chart's
 *                    ({@link ServeUnderLoad#CHART_JVM_OPTIONS})
 * @param sample      {@code --sample}: how often that process's resident set is read
 * @param informers   {@code --informers}: the separate {@code serve} reads the example cluster from a stand-in API
 *                    server on the loopback address through its informers and runs the CacheBlendEngine controller
 *                    ({@code --reconcile-cacheblend}), as in a Pod, instead of reading a folder
 * @param serveJar    {@code --serve-jar}: the jar whose {@code serve} is measured (with the AOT cache beside it, if
 *                    any); empty: the shipped jar bench runs after (the one serve's classes come from)
 */
public record BenchOptions(Duration duration, Duration warmup, Duration maxWarmup, Duration round, int connections,
                           boolean json, Optional<String> enginesDir, boolean serveProcess,
                           Optional<List<String>> jvmOptions, Duration sample, Optional<String> serveJar,
                           boolean informers) {
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(20);
    public static final Duration DEFAULT_WARMUP = Duration.ofSeconds(10);
    public static final Duration DEFAULT_MAX_WARMUP = Duration.ofSeconds(120);
    public static final Duration DEFAULT_ROUND = Duration.ofSeconds(1);
    public static final int DEFAULT_CONNECTIONS = 16;
    /** The most connections accepted (each is a client thread). */
    public static final int MAX_CONNECTIONS = 512;
    public static final Duration DEFAULT_SAMPLE = Duration.ofMillis(500);

    public BenchOptions {
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(maxWarmup, "maxWarmup");
        Objects.requireNonNull(round, "round");
        Objects.requireNonNull(enginesDir, "enginesDir");
        Objects.requireNonNull(jvmOptions, "jvmOptions");
        Objects.requireNonNull(sample, "sample");
        Objects.requireNonNull(serveJar, "serveJar");
        if (serveJar.isPresent() && !serveProcess) {
            throw new IllegalArgumentException("--serve-jar is the jar of the separate serve process; add"
                    + " --serve-process");
        }
        if (informers && !serveProcess) {
            throw new IllegalArgumentException("--informers is how the separate serve process reads the cluster; add"
                    + " --serve-process");
        }
        jvmOptions = jvmOptions.map(List::copyOf);
        if (jvmOptions.isPresent() && !serveProcess) {
            throw new IllegalArgumentException("--jvm-options is the options of the separate serve process; add"
                    + " --serve-process");
        }
        if (sample.compareTo(Duration.ofMillis(10)) < 0 || serveProcess && sample.compareTo(duration) > 0) {
            throw new IllegalArgumentException("--sample must be 10ms at least and at most the duration, not "
                    + text(sample));
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("--duration must be positive, not " + text(duration));
        }
        if (warmup.isNegative() || maxWarmup.isNegative()) {
            throw new IllegalArgumentException("--warmup and --max-warmup must not be negative");
        }
        if (round.isNegative() || round.isZero()) {
            throw new IllegalArgumentException("--round must be positive, not " + text(round));
        }
        if (round.multipliedBy(2).compareTo(duration) > 0) {
            throw new IllegalArgumentException("--round " + text(round) + " leaves no room for one round of each side in --duration "
                    + text(duration) + "; make the round at most half the duration");
        }
        if (duration.compareTo(Duration.ofHours(1)) > 0 || warmup.compareTo(Duration.ofHours(1)) > 0
                || maxWarmup.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("--duration, --warmup and --max-warmup are at most 1h");
        }
        if (connections < 1 || connections > MAX_CONNECTIONS) {
            throw new IllegalArgumentException("--connections must be 1.." + MAX_CONNECTIONS + ", not " + connections);
        }
    }

    /** The options of the in-process bench ({@code --serve-process} not given). */
    public BenchOptions(Duration duration, Duration warmup, Duration maxWarmup, Duration round, int connections,
                        boolean json, Optional<String> enginesDir) {
        this(duration, warmup, maxWarmup, round, connections, json, enginesDir, false, Optional.empty(),
                DEFAULT_SAMPLE, Optional.empty(), false);
    }

    /**
     * Every default: 20 s measured in 1 s rounds after a warm-up of 10 s to 120 s (until the JIT is quiet),
     * 16 connections, a table.
     */
    public static BenchOptions defaults() {
        return new BenchOptions(DEFAULT_DURATION, DEFAULT_WARMUP, DEFAULT_MAX_WARMUP, DEFAULT_ROUND,
                DEFAULT_CONNECTIONS, false, Optional.empty());
    }

    /** The warm-up's upper bound: {@code maxWarmup}, but never less than {@code warmup}. */
    public Duration warmupLimit() {
        return maxWarmup.compareTo(warmup) < 0 ? warmup : maxWarmup;
    }

    /** The number of measured rounds: even, so that both sides get as many. */
    public int rounds() {
        long n = duration.toNanos() / round.toNanos();
        return (int) Math.max(2, n - n % 2);
    }

    /** The flags of {@code bench} as given, before they are checked ({@link #of}). */
    public static final class Flags {
        @Option(names = "--duration", paramLabel = "D", description = "The measured time of both sides together"
                + " (default 20s).")
        String duration;
        @Option(names = "--warmup", paramLabel = "D", description = "The least warm-up, not counted (default 10s).")
        String warmup;
        @Option(names = "--max-warmup", paramLabel = "D", description = "The most warm-up: past --warmup it goes on"
                + " until the JIT compilers are quiet, but not beyond this (default 120s).")
        String maxWarmup;
        @Option(names = "--round", paramLabel = "D", description = "One round; the sides alternate every round"
                + " (default 1s).")
        String round;
        @Option(names = "--connections", paramLabel = "N", description = "Keep-alive connections, one request in"
                + " flight on each (default 16, at most " + MAX_CONNECTIONS + ").")
        String connections;
        @Option(names = "--json", arity = "0", description = "Print the report as one JSON object.")
        boolean json;
        @Mixin
        EngineOptions engines = new EngineOptions();
        @Option(names = "--serve-process", arity = "0", description = "Measure a separate serve JVM with the chart's"
                + " options and report its resident set.")
        boolean serveProcess;
        @Option(names = "--informers", arity = "0", description = "With --serve-process: that serve reads the"
                + " example cluster from a stand-in API server through its informers and runs the controller.")
        boolean informers;
        @Option(names = "--jvm-options", paramLabel = "\"...\"", description = "With --serve-process: its JVM"
                + " options (default: the chart's).")
        String jvmOptions;
        @Option(names = "--sample", paramLabel = "D", description = "With --serve-process: how often its resident"
                + " set is read (default 500ms).")
        String sample;
        @Option(names = "--serve-jar", paramLabel = "JAR", description = "With --serve-process: the jar whose serve"
                + " is measured (default: the shipped jar bench runs after on the class path).")
        String serveJar;
    }

    /**
     * Parses {@code [--duration 20s] [--warmup 10s] [--max-warmup 120s] [--round 1s] [--connections 16] [--json]
     * [--engines-dir DIR] [--serve-process [--informers] [--jvm-options "..."] [--sample 500ms] [--serve-jar JAR]]} ({@code --flag=value} too).
     *
     * @throws IllegalArgumentException with a one-line reason for an unknown flag or a bad value
     */
    public static BenchOptions parse(String[] args) {
        Flags flags = new Flags();
        try {
            CommandLine cl = new CommandLine(flags);
            cl.setOverwrittenOptionsAllowed(true);
            cl.parseArgs(args);
        } catch (CommandLine.UnmatchedArgumentException e) {
            String first = e.getUnmatched().isEmpty() ? "" : e.getUnmatched().get(0);
            throw new IllegalArgumentException("unknown option " + first + (e.getSuggestions().isEmpty() ? ""
                    : "; did you mean " + e.getSuggestions().get(0) + "?"), e);
        } catch (CommandLine.MaxValuesExceededException e) {
            java.util.regex.Matcher named = java.util.regex.Pattern.compile("option '([^']+)' should be specified"
                    + " without").matcher(String.valueOf(e.getMessage()));
            throw new IllegalArgumentException((named.lookingAt() ? named.group(1) + " takes no value"
                    : e.getMessage()), e);
        } catch (CommandLine.MissingParameterException e) {
            java.util.regex.Matcher named = java.util.regex.Pattern.compile("[^']*'([^']+)'").matcher(
                    String.valueOf(e.getMessage()));
            throw new IllegalArgumentException((named.lookingAt() ? named.group(1) + " needs a value"
                    : e.getMessage()), e);
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return of(flags);
    }

    /**
     * The flags checked.
     *
     * @throws IllegalArgumentException with a one-line reason for a bad value
     */
    public static BenchOptions of(Flags f) {
        return new BenchOptions(
                f.duration == null ? DEFAULT_DURATION : duration("--duration", f.duration),
                f.warmup == null ? DEFAULT_WARMUP : duration("--warmup", f.warmup),
                f.maxWarmup == null ? DEFAULT_MAX_WARMUP : duration("--max-warmup", f.maxWarmup),
                f.round == null ? DEFAULT_ROUND : duration("--round", f.round),
                f.connections == null ? DEFAULT_CONNECTIONS : count("--connections", f.connections),
                f.json, f.engines.given(), f.serveProcess,
                Optional.ofNullable(f.jvmOptions).map(BenchOptions::jvmOptions),
                f.sample == null ? DEFAULT_SAMPLE : duration("--sample", f.sample),
                Optional.ofNullable(f.serveJar), f.informers);
    }

    /** {@code --jvm-options}: split at white space; each must start with {@code -}. */
    static List<String> jvmOptions(String value) {
        List<String> options = value.isBlank() ? List.of() : List.of(value.strip().split("\\s+"));
        for (String option : options) {
            if (!option.startsWith("-")) {
                throw new IllegalArgumentException("--jvm-options takes JVM options such as -Xmx130m, each starting"
                        + " with -, not \"" + option + "\"");
            }
            if (option.equals("-jar") || option.equals("-cp") || option.equals("-classpath")) {
                throw new IllegalArgumentException("--jvm-options must not name " + option + "; bench starts the"
                        + " jar itself");
            }
        }
        return options;
    }

    /** {@code 20s}, {@code 500ms}, {@code 2m}, or a plain number of seconds ({@code 1.5}). */
    static Duration duration(String flag, String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        String number;
        long unitNanos;
        if (v.endsWith("ms")) {
            number = v.substring(0, v.length() - 2);
            unitNanos = 1_000_000L;
        } else if (v.endsWith("s")) {
            number = v.substring(0, v.length() - 1);
            unitNanos = 1_000_000_000L;
        } else if (v.endsWith("m")) {
            number = v.substring(0, v.length() - 1);
            unitNanos = 60_000_000_000L;
        } else {
            number = v;
            unitNanos = 1_000_000_000L;
        }
        double amount;
        try {
            amount = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            amount = Double.NaN;
        }
        if (!Double.isFinite(amount) || number.isEmpty() || !number.matches("[0-9.]+")
                || amount * unitNanos > Duration.ofHours(24).toNanos()) {
            throw new IllegalArgumentException(flag + " must be a duration such as 20s, 500ms or 2m, not \"" + value + "\"");
        }
        return Duration.ofNanos(Math.round(amount * unitNanos));
    }

    private static int count(String flag, String value) {
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " must be a whole number, not \"" + value + "\"");
        }
    }

    /** A duration as the flags spell it: {@code 20s}, {@code 500ms}. */
    static String text(Duration d) {
        long millis = d.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}
