package io.kvcacheinjector.app.reliability;

import io.kvcacheinjector.domain.json.Json;
import io.kvcacheinjector.app.engines.BuiltInEngines;
import io.kvcacheinjector.app.engines.EngineFolders;
import io.kvcacheinjector.app.engines.PluginJars;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The real {@code serve} command in a child JVM: {@code java -cp <the test classpath> io.kvcacheinjector.app.Main
 * serve ...}, so the Guice module, the engines found by ServiceLoader, the cluster view and the HTTPS server are
 * exactly what the jar runs. Its JSON log (stdout) and stderr go to files; its port is read from the
 * {@code server-started} line. Memory and threads are read from {@code /proc}. Stopped with SIGTERM, and killed if
 * it does not exit in time, so no child outlives its test.
 */
final class ServeProcess implements AutoCloseable {
    private static final Duration START_DEADLINE = Duration.ofSeconds(90);
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(30);

    private final Process process;
    private final Path stdout;
    private final Path stderr;
    private final int port;

    private ServeProcess(Process process, Path stdout, Path stderr, int port) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
        this.port = port;
    }

    /**
     * Starts {@code serve} with {@code serveArgs} ({@code --host 127.0.0.1 --port 0} are added), JVM options and
     * extra environment, logging into {@code dir}. Returns once the server has logged its port.
     */
    static ServeProcess start(Path dir, List<String> jvmOptions, List<String> serveArgs, Map<String, String> env)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path out = dir.resolve("serve.stdout.jsonl");
        Path err = dir.resolve("serve.stderr.log");
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(snapshot(PluginJars.testClasspath(), dir.resolve("classpath")));
        command.add("io.kvcacheinjector.app.Main");
        command.add("serve");
        command.addAll(List.of("--host", "127.0.0.1", "--port", "0"));
        command.addAll(serveArgs);
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().remove("KUBECONFIG");
        builder.environment().putAll(env);
        Process process = builder.start();
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
        long deadline = System.nanoTime() + START_DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<Map<String, Object>> started = firstLine(out, l -> "server-started".equals(l.get("event")));
            if (started.isPresent()) {
                return new ServeProcess(process, out, err, ((Number) started.get().get("port")).intValue());
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("serve exited with " + process.exitValue() + " before it listened:\n"
                        + tail(out) + "\n" + tail(err));
            }
            Thread.sleep(50);
        }
        process.destroyForcibly();
        throw new IllegalStateException("serve did not listen within " + START_DEADLINE + ":\n" + tail(out) + "\n"
                + tail(err));
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    Path stdout() {
        return stdout;
    }

    Path stderr() {
        return stderr;
    }

    /** Every JSON log line so far, parsed (lines that are not JSON objects are skipped). */
    List<Map<String, Object>> log() {
        return lines(stdout);
    }

    /** The log lines with this {@code event}. */
    List<Map<String, Object>> events(String event) {
        return log().stream().filter(l -> event.equals(l.get("event"))).toList();
    }

    /** Resident set size of the child, in KiB ({@code VmRSS}). */
    long rssKib() {
        return procStatus("VmRSS:");
    }

    /**
     * The resident KiB of the child's mappings of exactly {@code sizeKib} ({@code /proc/<pid>/smaps}): with the serial
     * collector, the Java heap is one mapping the size of {@code -Xmx}, so this is how much of the heap is resident.
     */
    long rssOfMappingsSizedKib(long sizeKib) {
        long rss = 0;
        boolean inside = false;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "smaps"))) {
                if (line.startsWith("Size:")) {
                    inside = Long.parseLong(line.substring(5).trim().split("\\s+")[0]) == sizeKib;
                } else if (inside && line.startsWith("Rss:")) {
                    rss += Long.parseLong(line.substring(4).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return rss;
    }

    /** Platform threads of the child ({@code Threads}). */
    long threads() {
        return procStatus("Threads:");
    }

    /** Open file descriptors of the child. */
    long openFds() {
        String[] fds = new File("/proc/" + process.pid() + "/fd").list();
        return fds == null ? -1 : fds.length;
    }

    /** Asks the child for a full collection ({@code jcmd <pid> GC.run}); false when jcmd is not available. */
    boolean collectGarbage() throws InterruptedException {
        Path jcmd = Path.of(javaExecutable()).resolveSibling("jcmd");
        if (!Files.isExecutable(jcmd)) {
            return false;
        }
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "GC.run")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The child's native memory by category, committed KiB ({@code jcmd <pid> VM.native_memory summary}; the child
     * must run with {@code -XX:NativeMemoryTracking=summary}): {@code Total}, {@code Java Heap}, {@code Class},
     * {@code Thread}, {@code Code}, {@code GC}, ... Empty when jcmd or the tracking is not available.
     */
    Map<String, Long> nativeMemoryKib() throws InterruptedException {
        Path jcmd = Path.of(javaExecutable()).resolveSibling("jcmd");
        Map<String, Long> out = new java.util.LinkedHashMap<>();
        if (!Files.isExecutable(jcmd)) {
            return out;
        }
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "VM.native_memory",
                    "summary").redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return out;
            }
            java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                    "(?m)^(?:-\\s*)?([A-Za-z][A-Za-z ]*?)\\s*\\(reserved=\\d+KB, committed=(\\d+)KB\\)").matcher(text);
            while (m.find()) {
                out.put(m.group(1).trim(), Long.parseLong(m.group(2)));
            }
            java.util.regex.Matcher total = java.util.regex.Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB")
                    .matcher(text);
            if (total.find()) {
                out.put("Total", Long.parseLong(total.group(1)));
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    /** SIGTERM, then waits; returns the exit status (killed after the deadline: -1). */
    int stop() throws InterruptedException {
        if (!process.isAlive()) {
            return process.exitValue();
        }
        process.destroy();
        if (process.waitFor(STOP_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
            return process.exitValue();
        }
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        return -1;
    }

    @Override
    public void close() {
        try {
            stop();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** The last lines of both logs, for a failure message. */
    String tails() {
        return "--- serve stdout (tail) ---\n" + tail(stdout) + "\n--- serve stderr (tail) ---\n" + tail(stderr);
    }

    private long procStatus(String key) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith(key)) {
                    return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    static String javaExecutable() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /**
     * A private copy of {@code classpath} under {@code into}, as a classpath string. Other builds in the same checkout
     * reinstall the sibling modules' jars in {@code ~/.m2} and recompile {@code target/classes}; a child that loads a
     * class from a jar replaced under it fails with {@code NoClassDefFoundError}, which would look like a fault of the
     * server.
     *
     * <p>The engines come as they come to the jar: the engine modules on the test class path are left out, and the
     * built-in engines folder ({@code app/target/engines}) is copied to {@code into/engines}, which is the child's
     * default engines folder (beside its class folders).
     */
    static String snapshot(String classpath, Path into) throws IOException {
        Files.createDirectories(into);
        List<String> copied = new ArrayList<>();
        int i = 0;
        for (String entry : classpath.split(File.pathSeparator)) {
            Path source = Path.of(entry);
            if (entry.isBlank() || !Files.exists(source) || isEngineModule(source)) {
                continue;
            }
            Path target = into.resolve(String.format("%03d-%s", i++, source.getFileName()));
            PluginJars.copyTree(source, target);
            copied.add(target.toString());
        }
        PluginJars.copyTree(BuiltInEngines.FOLDER, into.resolve(EngineFolders.DEFAULT_FOLDER));
        return String.join(File.pathSeparator, copied);
    }

    /** {@code engines-vllm/target/classes}, {@code engines-sglang-0.1.0-SNAPSHOT.jar} and the like. */
    private static boolean isEngineModule(Path entry) {
        for (Path part : entry) {
            if (part.toString().startsWith("engines-")) {
                return true;
            }
        }
        return false;
    }

    private static Optional<Map<String, Object>> firstLine(Path file, Predicate<Map<String, Object>> matching) {
        return lines(file).stream().filter(matching).findFirst();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> lines(Path file) {
        List<Map<String, Object>> out = new ArrayList<>();
        List<String> text;
        try {
            text = Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String line : text) {
            if (line.startsWith("{")) {
                Json.parse(line).filter(Map.class::isInstance).ifPresent(m -> out.add((Map<String, Object>) m));
            }
        }
        return out;
    }

    private static String tail(Path file) {
        try {
            if (!Files.exists(file)) {
                return "(none)";
            }
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - 40), all.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
