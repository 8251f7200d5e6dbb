package io.kvcacheinjector.app.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code serve} on a cluster whose API server does not serve the CacheBlend CRD (answered as kube-apiserver
 * answers an unknown group: a plain-text 404): while the informer retries, the log says so once, as a JSON
 * {@code informer-failing} warning naming the CRD and the fix, stderr carries no stack trace, and {@code /readyz}
 * says exactly what docs/reference/server-flags.md quotes. Once the CRD is installed, one {@code informer-recovered}
 * and the webhook is ready.
 */
class MissingCrdTest {
    private static final String CRD = "cacheblendengines.lmcache.lmcache.ai";

    @TempDir
    Path dir;
    private MockApiServer api;
    private ServeProcess serve;
    private WebhookClient client;

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        if (serve != null) {
            assertThat(serve.stop()).as("exit status after SIGTERM\n%s", serve.tails()).isZero();
        }
        if (api != null) {
            api.close();
        }
    }

    @Test
    void aMissingCrdIsOneWarningEventNoStackTraceAndTheDocumentedReadyz() throws Exception {
        api = new MockApiServer();
        api.load(Path.of("..", "docs", "examples", "cluster"));
        api.unserve("lmcache.lmcache.ai");
        serve = ServeProcess.start(dir, GeneratedHostileReviewsTest.CHART_JVM,
                List.of("--tls-ca-out", dir.resolve("ca.pem").toString()),
                Map.of("KUBECONFIG", api.kubeconfig(dir).toString()));
        client = new WebhookClient(WebhookClient.trusting(dir.resolve("ca.pem")), serve.port());

        // the first list and two retries (fabric8 backs off 1 s, 2 s, 4 s, ...) all answered 404
        await("three failed lists of " + CRD, Duration.ofSeconds(60), () -> api.unservedRequests() >= 3);
        WebhookClient.Answer readyz = client.get("/readyz");
        assertThat(readyz.status()).isEqualTo(503);
        assertThat(oneLine(readyz.text())).as("/readyz, as docs/reference/server-flags.md quotes it")
                .isEqualTo(documentedReadyz());

        List<Map<String, Object>> failing = serve.events("informer-failing");
        assertThat(failing).as("one event per change of state, not per retry\n%s", serve.tails()).hasSize(1);
        assertThat(failing.get(0)).containsEntry("level", "warn").containsEntry("kind", "CacheBlendEngine")
                .containsEntry("scope", "all namespaces").containsEntry("crd", CRD);
        assertThat((String) failing.get(0).get("fix")).contains("install the CRD " + CRD)
                .contains("kubectl apply -f deploy/crds/lmcache.lmcache.ai_cacheblendengines.yaml")
                .contains("--disable-cacheblend").contains("cacheBlend.contract.enabled=false");
        assertThat(Files.exists(Path.of("..", "deploy", "crds", "lmcache.lmcache.ai_cacheblendengines.yaml")))
                .as("the file the fix names").isTrue();
        String stderr = Files.readString(serve.stderr());
        assertThat(stderr).as("stderr while the CRD is missing").doesNotContain("\tat ")
                .doesNotContain("will retry").doesNotContain("KubernetesClientException");

        api.serveAllGroups(); // the CRD is installed
        await("readiness once the CRD is served", Duration.ofSeconds(90), () -> status("/readyz") == 200);
        await("informer-recovered", Duration.ofSeconds(10), () -> !serve.events("informer-recovered").isEmpty());
        assertThat(serve.events("informer-recovered")).singleElement().satisfies(e -> assertThat(e)
                .containsEntry("kind", "CacheBlendEngine").containsEntry("scope", "all namespaces"));
        assertThat(serve.events("informer-failing")).hasSize(1);
    }

    /** The fenced block after "`/readyz` says which CRD is missing" in docs/reference/server-flags.md, its wrapped lines joined. */
    static String documentedReadyz() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "reference", "server-flags.md"));
        Matcher m = Pattern.compile("`/readyz` says which CRD is missing[^\\n]*\\n\\n```\\n(.*?)```", Pattern.DOTALL)
                .matcher(page);
        assertThat(m.find()).as("server-flags.md quotes /readyz for a missing CRD").isTrue();
        return oneLine(m.group(1));
    }

    private static String oneLine(String text) {
        return text.strip().replaceAll("\\s*\\n\\s*", " ");
    }

    private int status(String path) {
        try {
            return client.get(path).status();
        } catch (Exception e) {
            return -1;
        }
    }

    private static void await(String what, Duration deadline, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("gave up after " + deadline + " waiting for " + what);
            }
            Thread.sleep(100);
        }
    }
}
