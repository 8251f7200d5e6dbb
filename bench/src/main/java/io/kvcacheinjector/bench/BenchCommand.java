package io.kvcacheinjector.bench;

import io.kvcacheinjector.app.cli.Cli;
import io.kvcacheinjector.app.cli.KubeconfigOptions;
import io.kvcacheinjector.app.offline.OfflineCluster;

import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.bench.AdmissionBench;
import io.kvcacheinjector.bench.BenchOptions;
import io.kvcacheinjector.bench.BenchReport;
import io.kvcacheinjector.bench.ExampleCluster;
import io.kvcacheinjector.bench.ServeLoadReport;
import io.kvcacheinjector.bench.ServeUnderLoad;
import io.kvcacheinjector.app.engines.EngineLoadException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code bench [--duration 20s] [--warmup 10s] [--max-warmup 120s] [--round 1s] [--connections 16] [--json]}: the
 * real webhook over the example cluster (embedded in the bench jar, written to a temporary directory and wired exactly as
 * the offline commands wire it) against a baseline that answers {@code allowed: true} without logic, same process,
 * same TLS and HTTP stack; see {@link AdmissionBench} and {@code docs/explanation/performance.md}.
 *
 * <p>Exit 0 with the report on stdout; 1 for a run whose numbers are not valid (failed requests, answers that are
 * not the expected ones), with the reason on stderr (and the report, marked invalid, on stdout); 2 for bad options.
 */
@Command(name = "bench", sortOptions = false,
        description = {"Measures the real webhook over the example cluster (embedded in the bench jar) against a baseline"
                + " that answers allowed: true without logic, same process, same TLS and HTTP stack"
                + " (docs/explanation/performance.md)."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:valid numbers; the report on stdout",
                "1:the numbers are not valid (failed requests, unexpected answers, a serve process that did not"
                        + " start); the reason on stderr",
                "2:bad usage, or engines that cannot be loaded; one line on stderr"})
public final class BenchCommand implements Callable<Integer> {
    @Mixin
    BenchOptions.Flags flags = new BenchOptions.Flags();

    @Mixin
    Cli.Help help = new Cli.Help();

    private final PrintStream out;
    private final PrintStream err;

    public BenchCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        return Cli.execute(new BenchCommand(out, err), args, out, err);
    }

    @Override
    public Integer call() throws InterruptedException {
        BenchOptions options;
        try {
            options = BenchOptions.of(flags);
        } catch (IllegalArgumentException e) {
            err.println("bench: " + e.getMessage());
            return Cli.USAGE;
        }
        return run(options, out, err);
    }

    static int run(BenchOptions options, PrintStream out, PrintStream err) throws InterruptedException {
        if (options.serveProcess()) {
            return serveProcess(options, out, err);
        }
        // the report is the output; the cluster loader's informational lines would only interleave with progress
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        Path cluster = exampleCluster(err);
        if (cluster == null) {
            return Cli.NO;
        }
        try {
            OfflineCluster.Opened opened;
            try {
                opened = OfflineCluster.files(cluster, options.enginesDir()).open(java.util.Map.of());
            } catch (EngineLoadException e) {
                err.println("bench: " + e.getMessage());
                return Cli.USAGE;
            } catch (RuntimeException | KubeconfigOptions.Unreadable e) {
                err.println("bench: cannot load the example cluster: " + e.getMessage());
                return Cli.NO;
            }
            AdmissionUseCases useCases = opened.wiring().useCases();
            BenchReport report;
            try {
                report = AdmissionBench.run(options, useCases, err);
            } catch (IllegalStateException e) {
                err.println("bench: " + e.getMessage());
                return Cli.NO;
            } finally {
                opened.close();
            }
            return printed(options.json() ? report.json() + System.lineSeparator() : report.table(),
                    report.problems(), out, err);
        } finally {
            ExampleCluster.delete(cluster);
        }
    }

    /**
     * {@code bench --serve-process}: {@code serve} in a separate JVM with the chart's options (or
     * {@code --jvm-options}), driven by the same client; see {@link ServeUnderLoad}.
     */
    private static int serveProcess(BenchOptions options, PrintStream out, PrintStream err)
            throws InterruptedException {
        Path cluster = exampleCluster(err);
        if (cluster == null) {
            return Cli.NO;
        }
        try {
            String javaExe = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Optional<Path> jar = options.serveJar().map(Path::of).or(ServeUnderLoad::runningJar);
            if (options.serveJar().isPresent() && !Files.isRegularFile(jar.get())) {
                err.println("bench: --serve-jar " + jar.get() + " is not a file; give the path of a built"
                        + " kvcache-injector.jar");
                return Cli.USAGE;
            }
            List<String> jvmOptions = options.jvmOptions().orElseGet(() -> ServeUnderLoad.defaultJvmOptions(jar));
            List<String> launch = jar.isPresent() ? List.of("-jar", jar.get().toString()) : ServeUnderLoad.launch();
            ServeLoadReport report;
            try {
                report = ServeUnderLoad.run(options, cluster, javaExe, jvmOptions, launch, err);
            } catch (IllegalStateException e) {
                err.println("bench: " + e.getMessage());
                return Cli.NO;
            }
            return printed(options.json() ? report.json() + System.lineSeparator() : report.table(),
                    report.problems(), out, err);
        } finally {
            ExampleCluster.delete(cluster);
        }
    }

    /** The example cluster written to a temporary directory; null, after one line on {@code err}, when it cannot be. */
    private static Path exampleCluster(PrintStream err) {
        try {
            return ExampleCluster.writeToTemporaryDirectory();
        } catch (IOException e) {
            err.println("bench: cannot write the example cluster to a temporary directory: " + e.getMessage());
            return null;
        }
    }

    /** Prints a report; the exit status: 0 for valid numbers, 1 (with the problems on {@code err}) otherwise. */
    private static int printed(String report, List<String> problems, PrintStream out, PrintStream err) {
        out.print(report);
        out.flush();
        if (!problems.isEmpty()) {
            err.println("bench: the numbers are not valid: " + String.join("; ", problems));
            return Cli.NO;
        }
        return Cli.OK;
    }
}
