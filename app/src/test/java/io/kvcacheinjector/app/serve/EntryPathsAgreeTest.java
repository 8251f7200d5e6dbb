package io.kvcacheinjector.app.serve;

import io.kvcacheinjector.app.offline.ReviewCommand;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.domain.Webhook;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * One composition root, proven: every golden case of the engine modules goes through {@code review} (the offline
 * command, in-process) and through {@code serve} (over HTTPS, started with the same options), and the two answers
 * are the same bytes: patch, warnings, audit annotations, status. The CacheBlend fail-closed suite runs with
 * {@code --cacheblend-fail-closed} on both paths, so the failure policy is the same too (Istio runs its golden files
 * through kube-inject and the webhook alike).
 */
class EntryPathsAgreeTest {
    private static final Path TESTDATA_ROOT = Path.of("..");

    @TempDir
    Path tmp;

    /** A golden suite: its folder, the webhook it is decided on, and the options both paths get. */
    private record Suite(Path dir, Webhook webhook, List<String> options) {
    }

    private static final List<Suite> SUITES = List.of(
            new Suite(suite("engines-vllm", "vllm"), Webhook.KVCACHE_MUTATE, List.of()),
            new Suite(suite("engines-ascend", "vllm-ascend"), Webhook.KVCACHE_MUTATE, List.of()),
            new Suite(suite("engines-sglang", "sglang"), Webhook.KVCACHE_MUTATE, List.of()),
            new Suite(suite("engines-vllm", "cacheblend"), Webhook.CACHEBLEND_MUTATE,
                    List.of("--cacheblend-allowed-namespaces", "lmcache-shared")),
            new Suite(suite("engines-vllm", "cacheblend").resolve("_fail-closed"), Webhook.CACHEBLEND_MUTATE,
                    List.of("--cacheblend-allowed-namespaces", "lmcache-shared", "--cacheblend-fail-closed")));

    private static Path suite(String module, String name) {
        return TESTDATA_ROOT.resolve(module).resolve("src/test/resources/testdata").resolve(name);
    }

    @TestFactory
    Stream<DynamicContainer> reviewAndServeGiveByteIdenticalAnswersForEveryGoldenCase() throws Exception {
        List<DynamicContainer> suites = new ArrayList<>();
        int cases = 0;
        for (Suite suite : SUITES) {
            List<Path> dirs;
            try (Stream<Path> s = Files.list(suite.dir())) {
                dirs = s.filter(Files::isDirectory).filter(p -> !p.getFileName().toString().startsWith("_")).sorted().toList();
            }
            assertThat(dirs).as("golden cases in %s", suite.dir()).isNotEmpty();
            cases += dirs.size();
            suites.add(DynamicContainer.dynamicContainer(suite.dir().getFileName().toString(),
                    Stream.of(DynamicTest.dynamicTest(dirs.size() + " cases", () -> compare(suite, dirs)))));
        }
        assertThat(cases).as("every golden case of the three engine modules").isGreaterThan(100);
        return suites.stream();
    }

    private void compare(Suite suite, List<Path> caseDirs) throws Exception {
        Path cluster = suite.dir().resolve("_cluster");
        Path ca = tmp.resolve(suite.dir().getFileName() + "-ca.pem");
        List<String> serveArgs = new ArrayList<>(List.of("--cluster", cluster.toString(), "--host", "127.0.0.1",
                "--port", "0", "--tls-ca-out", ca.toString()));
        serveArgs.addAll(suite.options());
        List<String> reviewArgs = new ArrayList<>(List.of("--cluster", cluster.toString(), "--webhook",
                suite.webhook().path()));
        reviewArgs.addAll(suite.options());

        ServeRuntime serve = ServeRuntime.start(ServeOptions.parse(serveArgs.toArray(String[]::new), Map.of()),
                JsonLog.discard(), Clock.systemUTC());
        try {
            SSLContext client = ServeTesting.trusting(ca);
            for (Path caseDir : caseDirs) {
                byte[] review = review(caseDir);

                ByteArrayOutputStream out = new ByteArrayOutputStream();
                ByteArrayOutputStream err = new ByteArrayOutputStream();
                int exit = ReviewCommand.run(reviewArgs.toArray(String[]::new), new ByteArrayInputStream(review),
                        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
                assertThat(exit).as("review of %s: %s", caseDir, err).isZero();
                String offline = out.toString(StandardCharsets.UTF_8).stripTrailing();

                ServeTesting.Response online = ServeTesting.request(client, serve.port(), "POST", "/" + suite.webhook().path(), review);
                assertThat(online.status()).as("serve's status for %s", caseDir).isEqualTo(200);

                assertThat(online.body()).as("serve and review answer %s alike", caseDir).isEqualTo(offline);
            }
        } finally {
            serve.close();
        }
    }

    /** The case's Pod as the API server would send it on CREATE, in the case's namespace. */
    @SuppressWarnings("unchecked")
    private static byte[] review(Path caseDir) throws Exception {
        Map<String, Object> pod = ServeTesting.JSON.readValue(caseDir.resolve("pod.json").toFile(), Map.class);
        String namespace = "team-a";
        if (Files.exists(caseDir.resolve("review.json"))) {
            JsonNode r = ServeTesting.JSON.readTree(caseDir.resolve("review.json").toFile());
            namespace = r.path("namespace").asText("team-a");
        }
        Map<String, Object> request = new java.util.LinkedHashMap<>();
        request.put("uid", "u-" + caseDir.getFileName());
        request.put("kind", Map.of("group", "", "version", "v1", "kind", "Pod"));
        request.put("resource", Map.of("group", "", "version", "v1", "resource", "pods"));
        request.put("namespace", namespace);
        request.put("operation", "CREATE");
        request.put("object", pod);
        return ServeTesting.JSON.writeValueAsBytes(Map.of("apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview",
                "request", request));
    }
}
