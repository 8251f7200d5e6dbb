package io.kvcacheinjector.app;

import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.app.bench.AdmissionBench;
import io.kvcacheinjector.app.bench.BenchOptions;
import io.kvcacheinjector.app.bench.BenchReport;
import io.kvcacheinjector.app.bench.ExampleCluster;
import io.kvcacheinjector.app.bench.ServeLoadReport;
import io.kvcacheinjector.app.bench.ServeUnderLoad;
import io.kvcacheinjector.app.engines.EngineLoadException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code bench [--duration 20s] [--warmup 10s] [--max-warmup 120s] [--round 1s] [--connections 16] [--json]}: the
 * real webhook over the example cluster (embedded in the jar, written to a temporary directory and wired exactly as
 * the offline commands wire it) against a baseline that answers {@code allowed: true} without logic, same process,
 * same TLS and HTTP stack; see {@link AdmissionBench} and {@code docs/explanation/performance.md}.
 *
 * <p>Exit 0 with the report on stdout; 1 for bad options or a run whose numbers are not valid (failed requests,
 * answers that are not the expected ones), with the reason on stderr (and the report, marked invalid, on stdout).
 */
final class BenchCommand {
    private BenchCommand() {
    }

    static int run(String[] args) throws InterruptedException {
        return run(args, System.out, System.err);
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws InterruptedException {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("bench: " + e.getMessage());
            err.println("usage: bench [--duration 20s] [--warmup 10s] [--max-warmup 120s] [--round 1s] [--connections 16]"
                    + " [--engines-dir DIR] [--json] [--serve-process [--informers] [--jvm-options \"...\"]"
                    + " [--sample 500ms] [--serve-jar JAR]]");
            return 1;
        }
        if (options.serveProcess()) {
            return serveProcess(options, out, err);
        }
        // the report is the output; the cluster loader's informational lines would only interleave with progress
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        Path cluster = exampleCluster(err);
        if (cluster == null) {
            return 1;
        }
        try {
            AdmissionUseCases useCases;
            try {
                List<String> cli = new ArrayList<>(List.of("--cluster", cluster.toString()));
                options.enginesDir().ifPresent(d -> cli.addAll(List.of(EngineOptions.FLAG, d)));
                useCases = OfflineCluster.wiring(CliArgs.parse(cli.toArray(String[]::new),
                        OfflineCluster.VALUED, OfflineCluster.SWITCHES)).useCases();
            } catch (EngineLoadException e) {
                err.println("bench: " + e.getMessage());
                return 1;
            } catch (RuntimeException e) {
                err.println("bench: cannot load the example cluster: " + e.getMessage());
                return 1;
            }
            BenchReport report;
            try {
                report = AdmissionBench.run(options, useCases, err);
            } catch (IllegalStateException e) {
                err.println("bench: " + e.getMessage());
                return 1;
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
            return 1;
        }
        try {
            String javaExe = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Optional<Path> jar = options.serveJar().map(Path::of).or(ServeUnderLoad::runningJar);
            if (options.serveJar().isPresent() && !Files.isRegularFile(jar.get())) {
                err.println("bench: --serve-jar " + jar.get() + " is not a file; give the path of a built"
                        + " kvcache-injector.jar");
                return 1;
            }
            List<String> jvmOptions = options.jvmOptions().orElseGet(() -> ServeUnderLoad.defaultJvmOptions(jar));
            List<String> launch = jar.isPresent() ? List.of("-jar", jar.get().toString()) : ServeUnderLoad.launch();
            ServeLoadReport report;
            try {
                report = ServeUnderLoad.run(options, cluster, javaExe, jvmOptions, launch, err);
            } catch (IllegalStateException e) {
                err.println("bench: " + e.getMessage());
                return 1;
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
            return 1;
        }
        return 0;
    }
}
