package io.kvcacheinjector.app.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * The docs that run: every block of {@code docs/tutorial/*.md} and {@code docs/how-to/*.md} marked
 * {@code <!-- docs-test: ... -->} ({@link DocBlocks}) is run as written, in order, one bash per page, with the real
 * {@code kubectl} v1.36.3 and {@code helm} v3.22.0 that {@code tools/e2e/provision.sh} builds, against a fresh real
 * kube-apiserver and etcd ({@code KUBECONFIG} points at it). The webhook runs outside the cluster, as the built jar's
 * {@code serve} started by the page itself ({@code bin/kvcache-injector}), reached through a loopback
 * {@code webhook.url}: the pages' steps for "a cluster without an image registry". A block that fails, or an output
 * block that no longer matches what its command prints, fails the page's test with the page, the line and both texts.
 *
 * <p>The page runs in a work directory holding symlinks to the repository's {@code bin}, {@code app},
 * {@code deploy}, {@code docs} and {@code tools}, so that its relative paths work and the files it writes stay out
 * of the repository; {@code HOME} is a fresh directory, {@code WEBHOOK_PORT} a free loopback port.
 * docs/how-to/run-e2e.md, "The docs suite", describes the markers.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class DocsE2E {
    private static final Duration PAGE_TIMEOUT = Duration.ofMinutes(6);
    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(2);
    private static final List<String> LINKED = List.of("bin", "app", "deploy", "docs", "tools");

    private static Path repo;
    private static Path assets;

    @BeforeAll
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // a cold provisioning builds the binaries
    static void locateTheBinariesAndTheJar() {
        repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        Path jar = Path.of(System.getProperty("kvcache.e2e.jar", "target/kvcache-injector.jar")).toAbsolutePath();
        ControlPlaneBinaries.Found found = ControlPlaneBinaries.locate(repo, System.getenv());
        if (found instanceof ControlPlaneBinaries.Unavailable unavailable) {
            System.out.println("docs-e2e: SKIPPED: " + unavailable.reason());
            Assumptions.abort(unavailable.reason());
        }
        assets = ((ControlPlaneBinaries.Available) found).dir();
        for (String tool : List.of("kubectl", "helm")) {
            if (!Files.isExecutable(assets.resolve(tool))) {
                throw new IllegalStateException(assets + " holds no executable " + tool + ": the docs suite runs the"
                        + " pages with the kubectl and helm that tools/e2e/provision.sh builds beside kube-apiserver"
                        + " and etcd; run it again (or give TEST_ASSET_KUBECTL/TEST_ASSET_HELM)");
            }
        }
        if (!jar.equals(repo.resolve("app/target/kvcache-injector.jar")) || !Files.isRegularFile(jar)) {
            throw new IllegalStateException("the pages run bin/kvcache-injector, which runs "
                    + repo.resolve("app/target/kvcache-injector.jar") + "; build it first (the e2e profile runs after"
                    + " `package`)");
        }
        System.out.println("docs-e2e: " + version("kubectl", "version", "--client") + "; helm "
                + version("helm", "version", "--short"));
    }

    @TestFactory
    Stream<DynamicTest> everyMarkedPageRunsAsWritten() throws IOException {
        List<Path> pages = new ArrayList<>();
        for (String dir : List.of("docs/tutorial", "docs/how-to")) {
            try (Stream<Path> files = Files.list(repo.resolve(dir))) {
                files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
            }
        }
        List<DynamicTest> tests = new ArrayList<>();
        for (Path page : pages) {
            String name = repo.relativize(page).toString();
            // the node blocks (the chart's own image on a real kubelet) are NodeE2E's
            List<DocBlocks.Block> blocks = DocBlocks.parse(Files.readString(page), name).stream()
                    .filter(b -> b.kind() != DocBlocks.Kind.NODE).toList();
            if (blocks.stream().anyMatch(b -> b.kind() == DocBlocks.Kind.RUN || b.kind() == DocBlocks.Kind.RUN_FAILS)) {
                tests.add(DynamicTest.dynamicTest(name, () -> runPage(name, blocks)));
            }
        }
        assertThat(tests).as("pages with docs-test blocks").isNotEmpty();
        return tests.stream();
    }

    /**
     * NOTES.txt prints the upgrade that turns CacheBlend off; run as printed it keeps the installed values. The same
     * upgrade without {@code --reuse-values} would reset {@code settings.namespace} to {@code gpustack-system}, which
     * this cluster lacks: the chart stops it before anything is applied, saying so, and the release stays deployed.
     */
    @Test
    void theNotesUpgradeKeepsTheValuesAndAnUpgradeThatWouldLoseThemStopsWithTheReason() throws Exception {
        Path work = Files.createTempDirectory("kvcache-docs-upgrade");
        boolean ok = false;
        try (ControlPlane controlPlane = ControlPlane.start(assets, work.resolve("control-plane"))) {
            Path dir = workDir(work, controlPlane);
            Map<String, String> env = environment(work, dir);
            int unused = ControlPlane.freePorts(1)[0]; // nothing listens there: no Pod is created in this test
            run(dir, env, 0, "kubectl", "create", "namespace", "kvcache-system");
            String install = run(dir, env, 0, "helm", "install", "kvi", "deploy/helm/kvcache-injector",
                    "-n", "kvcache-system", "--set", "settings.namespace=kvcache-system",
                    "--set", "webhook.url=https://127.0.0.1:" + unused, "--set", "replicaCount=0");
            String upgrade = install.lines().map(String::strip).filter(l -> l.startsWith("helm upgrade ")).findFirst()
                    .orElseThrow(() -> new AssertionError("NOTES print no helm upgrade:\n" + install));
            assertThat(upgrade).isEqualTo("helm upgrade kvi deploy/helm/kvcache-injector -n kvcache-system"
                    + " --reuse-values --set cacheBlend.contract.enabled=false");

            run(dir, env, 0, "bash", "-c", upgrade);
            String args = run(dir, env, 0, "kubectl", "-n", "kvcache-system", "get", "deployment",
                    "kvi-kvcache-injector", "-o", "jsonpath={.spec.template.spec.containers[0].args}");
            assertThat(args).contains("\"--settings-namespace\",\"kvcache-system\"").contains("--disable-cacheblend");

            String refused = run(dir, env, 1, "helm", "upgrade", "kvi", "deploy/helm/kvcache-injector",
                    "-n", "kvcache-system", "--set", "cacheBlend.enabled=true");
            assertThat(refused).contains("settings.namespace \"gpustack-system\" does not exist on this cluster")
                    .contains("--set settings.namespace=kvcache-system").contains("--reuse-values");
            String status = run(dir, env, 0, "helm", "status", "kvi", "-n", "kvcache-system");
            assertThat(status).contains("STATUS: deployed").contains("REVISION: 2");
            ok = true;
        } finally {
            cleanUp(work, ok);
        }
    }

    // ------------------------------------------------------------------------------------------------ one page

    private static void runPage(String name, List<DocBlocks.Block> blocks) throws Exception {
        Path work = Files.createTempDirectory("kvcache-docs-" + name.replaceAll("[^A-Za-z0-9]+", "-"));
        boolean ok = false;
        long start = System.nanoTime();
        try (ControlPlane controlPlane = ControlPlane.start(assets, work.resolve("control-plane"))) {
            Path dir = workDir(work, controlPlane);
            Map<String, String> env = environment(work, dir);
            Path state = Files.createDirectories(dir.resolve(".docs-test"));
            Path script = work.resolve("page.sh");
            Files.writeString(script, script(blocks));

            ProcessBuilder builder = new ProcessBuilder("bash", script.toString()).directory(dir.toFile())
                    .redirectErrorStream(true).redirectOutput(work.resolve("page.log").toFile());
            builder.environment().clear();
            builder.environment().putAll(env);
            Process bash = builder.start();
            boolean finished = bash.waitFor(PAGE_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            if (!finished) {
                bash.descendants().forEach(ProcessHandle::destroy);
                bash.destroy();
                bash.waitFor(20, TimeUnit.SECONDS);
                bash.descendants().forEach(ProcessHandle::destroyForcibly);
                bash.destroyForcibly();
            }
            int current = Integer.parseInt(read(state.resolve("current")).strip().isEmpty() ? "-1"
                    : read(state.resolve("current")).strip());
            if (!finished || bash.exitValue() != 0) {
                DocBlocks.Block failed = current >= 0 ? blocks.get(current) : null;
                String why = !finished ? "did not finish within " + PAGE_TIMEOUT.toMinutes() + " min"
                        : bash.exitValue() == 97 ? "exited 0, but the page marks it `run, fails`"
                        : "exited " + bash.exitValue();
                throw new AssertionError(name + (failed == null ? "" : ":" + failed.line()) + ": the block " + why
                        + (failed == null ? "" : ":\n" + failed.text()) + "--- it printed:\n"
                        + (current >= 0 ? read(state.resolve(current + ".out")) : "") + "\n--- bash:\n"
                        + read(work.resolve("page.log")) + tails(dir) + "\n" + controlPlane.logTails(20));
            }

            List<String> mismatches = new ArrayList<>();
            int lastRun = -1;
            for (int i = 0; i < blocks.size(); i++) {
                DocBlocks.Block b = blocks.get(i);
                if (b.kind() == DocBlocks.Kind.RUN || b.kind() == DocBlocks.Kind.RUN_FAILS) {
                    lastRun = i;
                } else if (b.kind() == DocBlocks.Kind.OUTPUT) {
                    String printed = read(state.resolve(lastRun + ".out"));
                    if (!DocBlocks.matches(b.text(), printed)) {
                        mismatches.add(name + ":" + b.line() + ": the output of the block at line "
                                + blocks.get(lastRun).line() + " no longer matches the page\n--- the page says:\n"
                                + b.text() + "--- the command printed:\n" + printed);
                    }
                }
            }
            assertThat(mismatches).as("outputs that differ from the page").isEmpty();
            long runs = blocks.stream().filter(b -> b.kind() != DocBlocks.Kind.OUTPUT
                    && b.kind() != DocBlocks.Kind.FILE).count();
            long outputs = blocks.stream().filter(b -> b.kind() == DocBlocks.Kind.OUTPUT).count();
            System.out.printf("docs-e2e: %s: %d blocks run, %d outputs matched, %.1f s (control plane included)%n",
                    name, runs, outputs, (System.nanoTime() - start) / 1e9);
            ok = true;
        } finally {
            cleanUp(work, ok);
        }
    }

    /** The page's blocks as one bash script; each block's output goes to .docs-test/N.out. */
    static String script(List<DocBlocks.Block> blocks) {
        StringBuilder s = new StringBuilder("""
                # generated by DocsE2E from the page's docs-test blocks
                set -o pipefail
                trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null' EXIT
                echo -1 > .docs-test/current
                """);
        for (int i = 0; i < blocks.size(); i++) {
            DocBlocks.Block b = blocks.get(i);
            s.append("\n# ---- block ").append(i).append(", page line ").append(b.line()).append('\n');
            switch (b.kind()) {
                case FILE -> s.append("cat > '").append(b.fileName().orElseThrow()).append("' <<'DOCS_TEST_EOF_")
                        .append(i).append("'\n").append(b.text()).append("DOCS_TEST_EOF_").append(i).append('\n');
                case RUN -> s.append("echo ").append(i).append(" > .docs-test/current\nset -e\n{\n").append(b.text())
                        .append("} > .docs-test/").append(i).append(".out 2>&1 < /dev/null\nset +e\n");
                case RUN_FAILS -> s.append("echo ").append(i).append(" > .docs-test/current\n{\n").append(b.text())
                        .append("} > .docs-test/").append(i).append(".out 2>&1 < /dev/null\n")
                        .append("if [ $? -eq 0 ]; then exit 97; fi\n");
                case OUTPUT, NODE -> {
                    // an output is compared after the run; a node block is run by NodeE2E on a real kubelet
                }
            }
        }
        return s.append("\nexit 0\n").toString();
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** The page's working directory: symlinks to the repository's folders, and a kubeconfig for the admin. */
    private static Path workDir(Path work, ControlPlane controlPlane) throws IOException {
        Path dir = Files.createDirectories(work.resolve("page"));
        for (String linked : LINKED) {
            Files.createSymbolicLink(dir.resolve(linked), repo.resolve(linked));
        }
        Files.writeString(work.resolve("kubeconfig"), controlPlane.kubeconfig(ControlPlane.ADMIN_TOKEN, "docs-admin"));
        return dir;
    }

    private static Map<String, String> environment(Path work, Path dir) throws IOException {
        Map<String, String> env = new HashMap<>();
        String javaHome = System.getProperty("java.home");
        env.put("PATH", assets + ":" + javaHome + "/bin:/usr/local/bin:/usr/bin:/bin");
        env.put("HOME", Files.createDirectories(work.resolve("home")).toString());
        env.put("KUBECONFIG", work.resolve("kubeconfig").toString());
        env.put("JAVA_HOME", javaHome);
        env.put("WEBHOOK_PORT", Integer.toString(ControlPlane.freePorts(1)[0]));
        env.put("KVCACHE_INJECTOR_JAVA_OPTS", "-Xmx256m -XX:ActiveProcessorCount=1"); // a shared 2-core machine
        env.put("LANG", "C.UTF-8");
        env.put("TERM", "dumb");
        return env;
    }

    /** Runs one command in {@code dir}; its output (stdout and stderr) when it exits {@code expected}. */
    private static String run(Path dir, Map<String, String> env, int expected, String... command) throws Exception {
        Path out = Files.createTempFile(dir, "command", ".out");
        List<String> argv = new ArrayList<>(List.of(command));
        if (Files.isExecutable(assets.resolve(argv.getFirst()))) {
            argv.set(0, assets.resolve(argv.getFirst()).toString()); // Java looks executables up in its own PATH
        }
        ProcessBuilder builder = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile());
        builder.environment().clear();
        builder.environment().putAll(env);
        Process p = builder.start();
        if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within " + COMMAND_TIMEOUT);
        }
        String text = Files.readString(out);
        assertThat(p.exitValue()).as("exit status of %s\n%s", String.join(" ", command), text).isEqualTo(expected);
        return text;
    }

    private static String version(String tool, String... args) {
        try {
            List<String> command = new ArrayList<>(List.of(assets.resolve(tool).toString()));
            command.addAll(List.of(args));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            p.waitFor(30, TimeUnit.SECONDS);
            return text.lines().findFirst().orElse(tool);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return tool;
        }
    }

    private static String tails(Path dir) throws IOException {
        StringBuilder s = new StringBuilder();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path log : files.filter(f -> f.toString().endsWith(".log")).sorted().toList()) {
                List<String> lines = Files.readAllLines(log);
                s.append("\n--- ").append(log.getFileName()).append(" (last 30 lines)\n")
                        .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size())));
            }
        }
        return s.toString();
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static void cleanUp(Path work, boolean ok) throws IOException {
        if (!ok || Boolean.getBoolean("kvcache.e2e.keep")) {
            System.out.println("docs-e2e: work directory kept: " + work);
            return;
        }
        try (Stream<Path> all = Files.walk(work)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p); // symlinks are deleted, not followed
            }
        }
    }
}
