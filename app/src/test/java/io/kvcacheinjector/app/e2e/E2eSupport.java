package io.kvcacheinjector.app.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;

/** What every e2e class does the same way: find the chart, wait for a condition, create the example cluster, clean up. */
final class E2eSupport {
    private E2eSupport() {
    }

    /** The chart under {@code repo}, or an exception naming where it was looked for. */
    static Path chartDir(Path repo) {
        Path chart = repo.resolve("deploy/helm/kvcache-injector");
        if (!Files.isRegularFile(chart.resolve("Chart.yaml"))) {
            throw new IllegalStateException("the chart is not at " + chart + " (set -Dkvcache.e2e.repo)");
        }
        return chart;
    }

    /** Waits until every CRD the chart installed is Established. */
    /**
     * Whether the API server serves {@code admissionregistration.k8s.io/v1} ValidatingAdmissionPolicy, which is what the
     * chart's {@code freeze.mode: auto} asks of it (Kubernetes 1.30+).
     */
    static boolean servesValidatingAdmissionPolicyV1(KubernetesClient admin) {
        var resources = admin.getApiResources("admissionregistration.k8s.io/v1");
        return resources != null && resources.getResources().stream()
                .anyMatch(r -> r.getName().equals("validatingadmissionpolicies"));
    }

    static void awaitCrdsEstablished(KubernetesClient admin) {
        for (CustomResourceDefinition crd : admin.apiextensions().v1().customResourceDefinitions().list().getItems()) {
            admin.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
                    .waitUntilCondition(E2eSupport::established, 60, TimeUnit.SECONDS);
        }
    }

    /**
     * Whether the API server serves {@code crd}. A CRD just created can carry a status without conditions (the API
     * server writes them a moment later), so a missing list means "not yet", never an error.
     */
    static boolean established(CustomResourceDefinition crd) {
        return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
                && crd.getStatus().getConditions().stream()
                        .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** The README's example cluster: backends {@code mc} and {@code npu}, pools, Bindings {@code chat} and {@code npu}. */
    static void createExampleCluster(KubernetesClient admin) {
        admin.resource(E2eObjects.rdmaBackend()).create();
        admin.resource(E2eObjects.cannBackend()).create();
        for (GenericKubernetesResource pool : List.of(E2eObjects.pool("shared", "mc", "mc-leader.kv.svc:50051"),
                E2eObjects.pool("npu", "npu", "npu-leader.kv.svc:50051"))) {
            Object status = pool.getAdditionalProperties().get("status");
            GenericKubernetesResource created = admin.resource(pool).create();
            created.getAdditionalProperties().put("status", status);
            admin.resource(created).updateStatus();
        }
        admin.resource(E2eObjects.binding("chat", "shared", "team-a-chat", false)).create();
        admin.resource(E2eObjects.binding("npu", "npu", "team-a-npu", false)).create();
    }

    /** Polls {@code done} every 100 ms for at most {@code budget}; an AssertionError naming {@code what} otherwise. */
    static void await(String what, Duration budget, Supplier<Boolean> done) {
        long deadline = System.nanoTime() + budget.toNanos();
        RuntimeException lastError = null;
        while (System.nanoTime() < deadline) {
            try {
                if (done.get()) {
                    return;
                }
                lastError = null;
            } catch (RuntimeException e) {
                lastError = e;
            }
            ControlPlane.sleep(100);
        }
        AssertionError error = new AssertionError("timed out after " + budget.toSeconds() + " s waiting for " + what
                + (lastError == null ? "" : " (last error: " + lastError.getMessage() + ")"));
        if (lastError != null) {
            error.initCause(lastError);
        }
        throw error;
    }

    static Duration since(long nanos) {
        return Duration.ofNanos(System.nanoTime() - nanos);
    }

    static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // best effort: a file the API server still wrote while stopping
                }
            });
        } catch (IOException e) {
            System.out.println("e2e: could not delete " + dir + ": " + e.getMessage());
        }
    }

    /**
     * The webhook image for a node test: {@code -Dkvcache.e2e.image} when given, else {@code deploy/image.sh}'s archive
     * (built now); the build's lines that mention a size go to {@code report}.
     */
    static Path webhookImage(Path repo, Consumer<String> report) {
        String given = System.getProperty("kvcache.e2e.image", "").trim();
        if (!given.isEmpty()) {
            return Path.of(given);
        }
        String out = run(repo, List.of(repo.resolve("deploy/image.sh").toString()), Duration.ofMinutes(25));
        Path image = repo.resolve("app/target/image/kvcache-injector.tar");
        if (!Files.isRegularFile(image)) {
            throw new AssertionError("deploy/image.sh wrote no " + image + "; it printed:\n" + out);
        }
        out.lines().filter(l -> l.toLowerCase(Locale.ROOT).contains("size")).forEach(l -> report.accept(l.strip()));
        return image;
    }

    /** Runs {@code command} in {@code repo}; its output (stdout and stderr) when it exits 0 within {@code timeout}. */
    static String run(Path repo, List<String> command, Duration timeout) {
        try {
            Path log = Files.createTempFile("e2e-run", ".log");
            try {
                Process p = new ProcessBuilder(command).directory(repo.toFile()).redirectErrorStream(true)
                        .redirectOutput(log.toFile()).start();
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    throw new AssertionError(String.join(" ", command) + " did not end within " + timeout
                            + ":\n" + Files.readString(log));
                }
                String out = Files.readString(log);
                if (p.exitValue() != 0) {
                    throw new AssertionError(String.join(" ", command) + " exited " + p.exitValue() + ":\n" + out);
                }
                return out;
            } finally {
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot run " + command + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
