package io.kvcacheinjector.app.e2e;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Where {@code kube-apiserver} and {@code etcd} come from: the folder in the system property {@code kvcache.e2e.binaries},
 * which app/pom.xml sets per surefire execution (from the Maven property {@code kvcache.e2e.assets} for the main one,
 * from {@code kvcache.e2e.<role>.assets} for the version matrix's; a name never given on the command line, because
 * surefire lets a {@code -D} of the same name override every execution's value) (what
 * {@code .ci/e2e} passes after running the provisioning itself), otherwise {@code tools/e2e/provision.sh}, which
 * honours {@code TEST_ASSET_KUBE_APISERVER}/{@code TEST_ASSET_ETCD}/{@code KUBEBUILDER_ASSETS}, reuses its cache, or
 * builds both from the Go module proxy. When it cannot, and there is neither Go nor {@code KUBEBUILDER_ASSETS}, the
 * suite is skipped; any other failure fails the suite.
 */
final class ControlPlaneBinaries {
    /** The outcome of looking for the binaries. */
    sealed interface Found {
    }

    /** Both binaries are in {@code dir}. */
    record Available(Path dir, String source, Duration took) implements Found {
    }

    /** Neither Go nor {@code KUBEBUILDER_ASSETS}: the suite cannot run here, for {@code reason}. */
    record Unavailable(String reason) implements Found {
    }

    private static final Duration PROVISION_TIMEOUT = Duration.ofMinutes(20);

    private ControlPlaneBinaries() {
    }

    static Found locate(Path repoRoot, Map<String, String> env) {
        long start = System.nanoTime();
        String given = System.getProperty("kvcache.e2e.binaries", "").trim();
        if (!given.isEmpty()) {
            Path dir = Path.of(given);
            requireBinaries(dir, "-Dkvcache.e2e.assets=" + given);
            return new Available(dir, "-Dkvcache.e2e.assets", Duration.ofNanos(System.nanoTime() - start));
        }
        Path script = repoRoot.resolve("tools/e2e/provision.sh");
        if (!Files.isExecutable(script)) {
            throw new IllegalStateException("tools/e2e/provision.sh is missing or not executable at " + script);
        }
        Path stderr;
        Path stdout;
        try {
            stderr = Files.createTempFile("kvcache-e2e-provision", ".err");
            stdout = Files.createTempFile("kvcache-e2e-provision", ".out");
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a temp file: " + e.getMessage(), e);
        }
        try {
            Process p = new ProcessBuilder(script.toString()).redirectOutput(stdout.toFile())
                    .redirectError(stderr.toFile()).start();
            if (!p.waitFor(PROVISION_TIMEOUT.toMinutes(), TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("tools/e2e/provision.sh did not finish within "
                        + PROVISION_TIMEOUT.toMinutes() + " min:\n" + Files.readString(stderr));
            }
            List<String> out = Files.readAllLines(stdout, StandardCharsets.UTF_8);
            String err = Files.readString(stderr, StandardCharsets.UTF_8).strip();
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            if (p.exitValue() == 0 && !out.isEmpty()) {
                Path dir = Path.of(out.getLast().strip());
                requireBinaries(dir, "the last line of tools/e2e/provision.sh");
                return new Available(dir, "tools/e2e/provision.sh", took);
            }
            if (go(env).isEmpty() && env.getOrDefault("KUBEBUILDER_ASSETS", "").isBlank()) {
                String last = err.isEmpty() ? "provision.sh exited " + p.exitValue() : err.lines().reduce((a, b) -> b).orElse("");
                return new Unavailable("neither Go nor KUBEBUILDER_ASSETS is available to provide kube-apiserver and etcd ("
                        + last.strip() + ")");
            }
            throw new IllegalStateException("tools/e2e/provision.sh failed (exit " + p.exitValue() + "):\n" + err);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run tools/e2e/provision.sh: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while provisioning", e);
        } finally {
            try {
                Files.deleteIfExists(stderr);
                Files.deleteIfExists(stdout);
            } catch (IOException e) {
                // temp files; nothing to do
            }
        }
    }

    /** {@code go} as provision.sh looks it up: {@code $GO}, then {@code PATH}, then {@code /usr/local/go/bin/go}. */
    static Optional<Path> go(Map<String, String> env) {
        String explicit = env.getOrDefault("GO", "");
        if (!explicit.isBlank() && Files.isExecutable(Path.of(explicit))) {
            return Optional.of(Path.of(explicit));
        }
        for (String dir : env.getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isBlank() && Files.isExecutable(Path.of(dir, "go"))) {
                return Optional.of(Path.of(dir, "go"));
            }
        }
        Path usual = Path.of("/usr/local/go/bin/go");
        return Files.isExecutable(usual) ? Optional.of(usual) : Optional.empty();
    }

    private static void requireBinaries(Path dir, String from) {
        for (String binary : List.of("kube-apiserver", "etcd")) {
            if (!Files.isExecutable(dir.resolve(binary))) {
                throw new IllegalStateException(from + " names " + dir + ", which holds no executable " + binary);
            }
        }
    }
}
