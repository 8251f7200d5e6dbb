package io.kvcacheinjector.app.e2e;

import static io.kvcacheinjector.app.e2e.E2eSupport.awaitCrdsEstablished;
import static io.kvcacheinjector.app.e2e.E2eSupport.deleteRecursively;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code inject} and {@code review} without {@code --cluster}, and the kubectl plugin {@code bin/kubectl-kvcache},
 * against a real kube-apiserver on loopback (no kubelet, no webhook installed): the objects of
 * {@code docs/examples/cluster/} are created in it, and the built jar, run as a child process with a kubeconfig,
 * must print byte for byte what {@code inject --cluster docs/examples/cluster} prints for the same input (stdout,
 * stderr and exit status), for every example Pod. The plugin is copied onto a {@code PATH} that holds the real
 * kubectl of the assets folder, as docs/how-to/kubectl-plugin.md installs it, and run through kubectl.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class InjectLiveE2E {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path repo;
    private static Path jar;
    private static Path assets;
    private static Path workDir;
    private static Path home;
    private static Path kubeconfig;
    private static ControlPlane controlPlane;
    private static KubernetesClient admin;
    private static boolean skipped;

    /** One run: exit status, stdout, stderr. */
    record Run(int exit, String out, String err) {
    }

    @BeforeAll
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // a cold provisioning builds the binaries
    static void startTheControlPlaneAndCreateTheExampleCluster() throws IOException {
        repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        jar = Path.of(System.getProperty("kvcache.e2e.jar", "target/kvcache-injector.jar")).toAbsolutePath();
        ControlPlaneBinaries.Found found = ControlPlaneBinaries.locate(repo, System.getenv());
        if (found instanceof ControlPlaneBinaries.Unavailable unavailable) {
            skipped = true;
            System.out.println("e2e: SKIPPED: " + unavailable.reason());
            Assumptions.abort(unavailable.reason());
        }
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the built jar " + jar + " is missing; the e2e profile runs after"
                    + " `package` (bin/mvn -Pe2e -pl app -am verify)");
        }
        assets = ((ControlPlaneBinaries.Available) found).dir();
        workDir = Files.createTempDirectory("kvcache-inject-live-e2e");
        home = Files.createDirectories(workDir.resolve("home")); // no ~/.kube of the machine
        controlPlane = ControlPlane.start(assets, workDir);
        admin = controlPlane.adminClient();
        kubeconfig = workDir.resolve("admin.kubeconfig");
        Files.writeString(kubeconfig, controlPlane.kubeconfig(ControlPlane.ADMIN_TOKEN, "e2e-admin"));

        try (Stream<Path> crds = Files.list(repo.resolve("deploy/crds"))) {
            for (Path crd : crds.sorted().toList()) {
                create(crd);
            }
        }
        awaitCrdsEstablished(admin);
        try (Stream<Path> files = Files.list(repo.resolve("docs/examples/cluster"))) {
            for (Path file : files.sorted().toList()) {
                create(file);
            }
        }
    }

    /** Every object of {@code file}, created with its status (the status subresource written after). */
    private static void create(Path file) throws IOException {
        List<HasMetadata> items;
        try (InputStream in = Files.newInputStream(file)) {
            items = admin.load(in).items();
        }
        for (HasMetadata item : items) {
            String ns = item.getMetadata().getNamespace();
            if (ns != null && admin.namespaces().withName(ns).get() == null) {
                admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata()
                        .build()).create();
            }
            Object status = item instanceof GenericKubernetesResource g ? g.getAdditionalProperties().get("status")
                    : null;
            HasMetadata created = admin.resource(item).create();
            if (status != null && created instanceof GenericKubernetesResource g) {
                g.getAdditionalProperties().put("status", status);
                admin.resource(g).updateStatus();
            }
        }
    }

    @AfterAll
    static void stopEverything() {
        if (skipped) {
            return;
        }
        if (admin != null) {
            admin.close();
        }
        if (controlPlane != null) {
            controlPlane.stop();
        }
        if (workDir != null && !Boolean.getBoolean("kvcache.e2e.keep")) {
            deleteRecursively(workDir);
        }
    }

    // ------------------------------------------------------------------------------------------------ cases

    @Test
    void injectAgainstTheLiveApiServerPrintsByteForByteWhatTheFileBackedClusterPrints() throws IOException {
        List<Path> pods;
        try (Stream<Path> files = Files.list(repo.resolve("docs/examples/pods"))) {
            pods = files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(pods).hasSizeGreaterThanOrEqualTo(4);
        TreeSet<Integer> exits = new TreeSet<>();
        for (Path pod : pods) {
            Run files = jar(null, "inject", "--cluster", repo.resolve("docs/examples/cluster").toString(),
                    "-f", pod.toString());
            Run live = jar(null, "inject", "--kubeconfig", kubeconfig.toString(), "-f", pod.toString());
            assertThat(live).as("inject of %s: live (first) and from files", pod.getFileName()).isEqualTo(files);
            exits.add(live.exit());
            if (live.exit() == 0) {
                assertThat(live.out()).as(pod.toString()).contains("injected");
            }
        }
        assertThat(exits).as("the examples include admitted and refused Pods").containsExactly(0, 1);

        // from stdin, with KUBECONFIG instead of --kubeconfig, as `kubectl get ... -o yaml | ... -f -` runs it
        String chat = Files.readString(repo.resolve("docs/examples/pods/vllm.yaml"));
        Run files = jar(chat, "inject", "--cluster", repo.resolve("docs/examples/cluster").toString(), "-f", "-");
        Run live = jarWith(Map.of("KUBECONFIG", kubeconfig.toString()), chat, "inject", "-f", "-");
        assertThat(live).isEqualTo(files);
        assertThat(live.exit()).isZero();
    }

    @Test
    void reviewAgainstTheLiveApiServerAnswersWhatTheFileBackedClusterAnswers() throws IOException {
        String review = Files.readString(repo.resolve("docs/examples/reviews/vllm-create.json"));
        Run files = jar(review, "review", "--cluster", repo.resolve("docs/examples/cluster").toString(),
                "--webhook", "kvcache/mutate");
        Run live = jar(review, "review", "--kubeconfig", kubeconfig.toString(), "--webhook", "kvcache/mutate");
        assertThat(live).isEqualTo(files);
        assertThat(live.exit()).isZero();
        assertThat(JSON.readTree(live.out()).path("response").path("allowed").asBoolean()).isTrue();
    }

    @Test
    void aMissingKubeconfigOrAnUnreachableClusterIsOneLineNamingTheCauseAndExitTwo() throws IOException {
        Path pod = repo.resolve("docs/examples/pods/vllm.yaml");
        Run none = jar(null, "inject", "-f", pod.toString());
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.out()).isEmpty();
        assertThat(none.err()).startsWith("inject: no kubeconfig: KUBECONFIG is not set").contains("--cluster DIR")
                .hasLineCount(1);

        Run missing = jarWith(Map.of("KUBECONFIG", workDir.resolve("nope.kubeconfig").toString()), null, "review",
                "--webhook", "kvcache/mutate");
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).startsWith("review: no kubeconfig: KUBECONFIG=").contains("no such file")
                .hasLineCount(1);

        int closed = ControlPlane.freePorts(1)[0];
        Path unreachable = workDir.resolve("unreachable.kubeconfig");
        Files.writeString(unreachable, controlPlane.kubeconfig(ControlPlane.ADMIN_TOKEN, "e2e-admin")
                .replace(controlPlane.url(), "https://127.0.0.1:" + closed));
        Run down = jar(null, "inject", "--kubeconfig", unreachable.toString(), "-f", pod.toString());
        assertThat(down.exit()).isEqualTo(2);
        assertThat(down.out()).isEmpty();
        assertThat(down.err()).startsWith("inject: cannot reach the cluster at https://127.0.0.1:" + closed)
                .contains("--kubeconfig").hasLineCount(1);

        Run context = jar(null, "inject", "--kubeconfig", kubeconfig.toString(), "--context", "prod", "-f",
                pod.toString());
        assertThat(context.exit()).isEqualTo(2);
        assertThat(context.err()).startsWith("inject: context \"prod\" is not in the kubeconfig").contains("e2e")
                .hasLineCount(1);
    }

    @Test
    void theKubectlPluginRunsThroughKubectlWithKubectlsOwnFlags() throws IOException {
        Path pluginDir = Files.createDirectories(workDir.resolve("plugins"));
        Path plugin = pluginDir.resolve("kubectl-kvcache");
        Files.copy(repo.resolve("bin/kubectl-kvcache"), plugin, StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.COPY_ATTRIBUTES); // installed by copying it onto PATH, as the how-to says
        assertThat(Files.isExecutable(plugin)).isTrue();
        Map<String, String> env = new HashMap<>();
        env.put("PATH", pluginDir + ":" + assets + ":/usr/bin:/bin");
        env.put("KUBECONFIG", kubeconfig.toString());
        env.put("KVCACHE_INJECTOR_JAR", jar.toString());
        env.put("JAVA_HOME", System.getProperty("java.home"));

        Run list = kubectl(env, null, "plugin", "list");
        assertThat(list.out()).contains(plugin.toString());

        Path pod = repo.resolve("docs/examples/pods/vllm.yaml");
        Run files = jar(null, "inject", "--cluster", repo.resolve("docs/examples/cluster").toString(),
                "-f", pod.toString());
        Run viaKubectl = kubectl(env, null, "kvcache", "inject", "-f", pod.toString());
        assertThat(viaKubectl).isEqualTo(files);
        Run withFlags = kubectl(env, Files.readString(pod), "kvcache", "inject", "--context", "e2e", "-n", "team-a",
                "-f", "-");
        assertThat(withFlags).isEqualTo(files);

        Run check = kubectl(env, null, "kvcache", "check", "-A", "-o", "json");
        assertThat(check.exit()).as(check.err()).isIn(0, 1);
        JsonNode report = JSON.readTree(check.out());
        assertThat(report.path("scope").asText()).isEqualTo("all namespaces");
        assertThat(report.path("findings").isArray()).isTrue();

        Run help = kubectl(env, null, "kvcache", "inject", "--help");
        assertThat(help.exit()).isZero();
        assertThat(help.out()).startsWith("Usage: kubectl kvcache inject");

        Run typo = kubectl(env, null, "kvcache", "chek", "-A");
        assertThat(typo.exit()).isEqualTo(2);
        assertThat(typo.err()).contains("kubectl kvcache: unknown command \"chek\"; did you mean check?");

        Run wrongContext = kubectl(env, null, "kvcache", "check", "--context", "prod");
        assertThat(wrongContext.exit()).isEqualTo(2);
        assertThat(wrongContext.err()).startsWith("check: context \"prod\" is not in the kubeconfig");
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static Run jar(String stdin, String... args) {
        return jarWith(Map.of(), stdin, args);
    }

    private static Run jarWith(Map<String, String> env, String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString()));
        if (Runtime.version().feature() >= 23) {
            command.add("--sun-misc-unsafe-memory-access=allow"); // as bin/kvcache-injector does
        }
        command.addAll(List.of("-jar", jar.toString()));
        command.addAll(List.of(args));
        Map<String, String> all = new HashMap<>(env);
        all.putIfAbsent("PATH", "/usr/bin:/bin");
        return run(command, all, stdin);
    }

    private static Run kubectl(Map<String, String> env, String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of(assets.resolve("kubectl").toString()));
        command.addAll(List.of(args));
        return run(command, env, stdin);
    }

    private static Run run(List<String> command, Map<String, String> env, String stdin) {
        try {
            Path out = Files.createTempFile(workDir, "run", ".out");
            Path err = Files.createTempFile(workDir, "run", ".err");
            Path in = Files.writeString(Files.createTempFile(workDir, "run", ".in"), stdin == null ? "" : stdin);
            ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(in.toFile());
            pb.environment().clear();
            pb.environment().put("HOME", home.toString());
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("did not finish within 90 s: " + command);
            }
            Run run = new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
            System.out.println("e2e: " + String.join(" ", command) + " -> exit " + run.exit());
            return run;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
