package io.kvcacheinjector.app.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A child process of the suite (etcd, kube-apiserver, the webhook), its output in one log file. It is stopped with
 * SIGTERM, then SIGKILL after a grace period, and killed by a JVM shutdown hook if the suite's JVM ends first.
 */
final class ManagedProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path log;
    private final Thread killOnExit;

    private ManagedProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.killOnExit = new Thread(process::destroyForcibly, "e2e-kill-" + name);
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /** Starts {@code command} with {@code env} added to this JVM's environment; stdout and stderr go to {@code log}. */
    static ManagedProcess start(String name, List<String> command, Map<String, String> env, Path log) {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(env);
        try {
            return new ManagedProcess(name, builder.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + " (" + command.getFirst() + "): " + e.getMessage(), e);
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** The exit status; only once the process has exited. */
    int exitValue() {
        return process.exitValue();
    }

    Path log() {
        return log;
    }

    /** The last {@code lines} lines of the log, for a failure message. */
    String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** The whole log. */
    String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * SIGTERM, wait up to {@code grace}, then SIGKILL. Idempotent.
     *
     * @return how long the process took to exit after SIGTERM, or the grace plus the kill when it had to be killed
     */
    Duration stop(Duration grace) {
        long start = System.nanoTime();
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                    System.out.println("e2e: " + name + " did not exit " + grace.toSeconds() + " s after SIGTERM: SIGKILL");
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException e) {
            // the JVM is shutting down already; the hook kills the process
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(15));
    }
}
