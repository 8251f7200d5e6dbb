package io.kvcacheinjector.app.e2e;

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
import java.util.stream.Stream;

/**
 * The single-node cluster of {@code tools/e2e/cluster.sh}: control plane, containerd, kubelet and kube-proxy inside
 * a network namespace the script creates. This JVM sends no packet to it: every client (kubectl, helm, the load
 * generator) runs inside the namespace through {@code cluster.sh exec}. {@link #close()} runs {@code cluster.sh
 * down}, which stops every process it started by its pid and deletes the namespace.
 */
final class NodeCluster implements AutoCloseable {
    /** What a command printed and how it ended. */
    record Result(int exit, String out, String err) {
        Result requireSuccess(String what) {
            if (exit != 0) {
                throw new IllegalStateException(what + " exited " + exit + ":\n" + out + err);
            }
            return this;
        }
    }

    private final Path repo;
    private final Path dir;
    private final Path script;

    private NodeCluster(Path repo, Path dir) {
        this.repo = repo;
        this.dir = dir;
        this.script = repo.resolve("tools/e2e/cluster.sh");
    }

    /**
     * Starts the cluster in {@code dir} with the binaries of {@code assets} and the image archives imported:
     * {@code images} by {@code ctr images import}, {@code seeded} (large archives that rarely change) through the
     * seeded containerd root of {@code cluster.sh} ({@code E2E_NODE_SEED_IMAGES}): imported once per archive set,
     * then linked in.
     */
    static NodeCluster start(Path repo, Path assets, Path dir, List<Path> images, List<Path> seeded) {
        NodeCluster cluster = new NodeCluster(repo, dir);
        // a first seed imports the engines' 6.7 GiB layer (about 3 minutes; more on a busy machine)
        Result up = cluster.run(List.of(cluster.script.toString(), "up", dir.toString(), "--assets", assets.toString()),
                Map.of("E2E_NODE_IMAGES", spaced(images), "E2E_NODE_SEED_IMAGES", spaced(seeded)), "",
                Duration.ofMinutes(seeded.isEmpty() ? 5 : 15));
        System.out.print(up.err().lines().filter(l -> l.startsWith("cluster:")).map(l -> "e2e: " + l + "\n")
                .reduce("", String::concat));
        if (up.exit() != 0) {
            cluster.close();
            throw new IllegalStateException("tools/e2e/cluster.sh up failed (exit " + up.exit() + "):\n" + up.err());
        }
        return cluster;
    }

    private static String spaced(List<Path> paths) {
        StringBuilder list = new StringBuilder();
        paths.forEach(i -> list.append(list.isEmpty() ? "" : " ").append(i));
        return list.toString();
    }

    Path dir() {
        return dir;
    }

    /** {@code kubectl ARGS} inside the namespace, with the admin kubeconfig. */
    Result kubectl(String... args) {
        return kubectlIn("", args);
    }

    /** {@code kubectl ARGS} inside the namespace with {@code stdin}. */
    Result kubectlIn(String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of("kubectl"));
        command.addAll(List.of(args));
        return exec(command, stdin, Duration.ofMinutes(3));
    }

    /** {@code kubectl ARGS}, which must succeed; its stdout. */
    String kubectlOk(String... args) {
        return kubectl(args).requireSuccess("kubectl " + String.join(" ", args)).out();
    }

    /** Any command inside the namespace (cwd: the repository), with KUBECONFIG set and the cluster's bin/ on PATH. */
    Result exec(List<String> command, String stdin, Duration timeout) {
        List<String> full = new ArrayList<>(List.of(script.toString(), "exec", dir.toString()));
        full.addAll(command);
        return run(full, Map.of(), stdin, timeout);
    }

    /** Starts {@code command} inside the namespace without waiting; its output goes to {@code log}. */
    Process spawn(List<String> command, Path log) {
        List<String> full = new ArrayList<>(List.of(script.toString(), "exec", dir.toString()));
        full.addAll(command);
        try {
            return new ProcessBuilder(full).directory(repo.toFile()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The admin kubeconfig file (its server address exists only inside the namespace). */
    Path kubeconfig() {
        return dir.resolve("admin.kubeconfig");
    }

    /** The host pid of the task of container {@code containerId} (containerd's id), from the node's containerd. */
    long taskPid(String containerId) {
        Result r = exec(List.of("ctr", "--address", dir.resolve("containerd/containerd.sock").toString(), "-n",
                "k8s.io", "tasks", "ls"), "", Duration.ofSeconds(30)).requireSuccess("ctr tasks ls");
        for (String line : r.out().lines().toList()) {
            String[] cols = line.trim().split("\\s+");
            if (cols.length >= 2 && cols[0].equals(containerId)) {
                return Long.parseLong(cols[1]);
            }
        }
        throw new IllegalStateException("no task of container " + containerId + " in:\n" + r.out());
    }

    /**
     * The memory cgroup folder of container {@code containerId} (cgroup v1, under the kubelet's cgroup root), or of
     * the unified hierarchy where that is what the machine has.
     */
    Optional<Path> memoryCgroup(String containerId) {
        return cgroup("memory", containerId);
    }

    /**
     * The cgroup folder of container {@code containerId} in the v1 hierarchy that holds {@code controller} ({@code
     * memory}, {@code cpu}, {@code cpuacct}: its own or a joined one such as {@code cpu,cpuacct}), under the kubelet's
     * cgroup root; or in the unified hierarchy where that is what the machine has.
     */
    Optional<Path> cgroup(String controller, String containerId) {
        List<Path> roots = new ArrayList<>();
        try (Stream<Path> hierarchies = Files.list(Path.of("/sys/fs/cgroup"))) {
            hierarchies.filter(h -> List.of(h.getFileName().toString().split(",")).contains(controller))
                    .map(h -> h.resolve("kvci-e2e")).forEach(roots::add);
        } catch (IOException | UncheckedIOException e) {
            // no cgroup file system: nothing to find
        }
        roots.add(Path.of("/sys/fs/cgroup/kvci-e2e"));
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(root)) {
                Optional<Path> found = walk.filter(p -> p.getFileName().toString().contains(containerId)).findFirst();
                if (found.isPresent()) {
                    return found;
                }
            } catch (IOException | UncheckedIOException e) {
                // a cgroup removed while walking: look again next time
            }
        }
        return Optional.empty();
    }

    /** The tail of each log of the cluster's processes, for a failure report. */
    String logTails(int lines) {
        StringBuilder out = new StringBuilder();
        try (Stream<Path> logs = Files.list(dir.resolve("logs"))) {
            for (Path log : logs.sorted().toList()) {
                List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
                out.append("---- ").append(log).append(" (last ").append(lines).append(" lines)\n");
                all.subList(Math.max(0, all.size() - lines), all.size()).forEach(l -> out.append(l).append('\n'));
            }
        } catch (IOException | UncheckedIOException e) {
            out.append("(logs not readable: ").append(e.getMessage()).append(")\n");
        }
        return out.toString();
    }

    @Override
    public void close() {
        Result down = run(List.of(script.toString(), "down", dir.toString()), Map.of(), "", Duration.ofMinutes(3));
        System.out.print(down.err().lines().map(l -> "e2e: " + l + "\n").reduce("", String::concat));
    }

    private Result run(List<String> command, Map<String, String> env, String stdin, Duration timeout) {
        try {
            Path out = Files.createTempFile(dir.getParent(), "node-cmd", ".out");
            Path err = Files.createTempFile(dir.getParent(), "node-cmd", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder(command).directory(repo.toFile())
                        .redirectOutput(out.toFile()).redirectError(err.toFile());
                builder.environment().putAll(env);
                Process p = builder.start();
                p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
                p.getOutputStream().close();
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    return new Result(124, Files.readString(out), Files.readString(err) + "\n(timed out after "
                            + timeout.toSeconds() + " s: " + String.join(" ", command) + ")");
                }
                return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + command, e);
        }
    }
}
