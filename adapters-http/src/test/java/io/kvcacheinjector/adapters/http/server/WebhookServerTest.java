package io.kvcacheinjector.adapters.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.telemetry.AdmissionOutcome;
import io.kvcacheinjector.adapters.http.testing.RawHttps;
import io.kvcacheinjector.adapters.http.testing.Reviews;
import io.kvcacheinjector.adapters.http.testing.TestPki;
import io.kvcacheinjector.adapters.http.testing.TestServer;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.domain.cluster.SyncState;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every endpoint and every error class over real TLS against a real Helidon server. */
class WebhookServerTest {
    private static final SelfSignedCertificate CERT = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
    private static final long LIMIT = 64 * 1024;
    private static TestServer server;
    private static SSLContext client;

    @BeforeAll
    static void start() {
        server = new TestServer(new ServerTls.Generated(CERT, Optional.empty()),
                TestServer.settings().withMaxBodyBytes(LIMIT));
        client = TestPki.clientContext(List.of(CERT.ca()));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void reset() {
        server.fakes.calls.clear();
        server.fakes.kvCacheMutate = pod -> Decision.Admit.unchanged();
        server.fakes.kvCacheFreeze = pod -> Decision.Admit.unchanged();
        server.fakes.cacheBlendMutate = pod -> Decision.Admit.unchanged();
        server.sync.set(SyncState.synced());
    }

    private RawHttps connect() throws Exception {
        return new RawHttps(client, server.port());
    }

    @Test
    void kvcacheMutateAnswersWithTheInjectionPatch() throws Exception {
        server.fakes.kvCacheMutate = pod -> new Decision.Admit(List.of(PatchOp.add("/metadata/annotations",
                Map.of("kvcache.gpustack.ai/injected", "{}"))), List.of());
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.post("/kvcache/mutate?timeout=10s",
                    Reviews.bytes(Reviews.create("uid-mutate", Reviews.optedInPod())));

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("content-type")).isEqualTo("application/json");
            Map<String, Object> response = Reviews.response(r.body());
            assertThat(response).containsEntry("uid", "uid-mutate").containsEntry("allowed", true)
                    .containsEntry("patchType", "JSONPatch");
            assertThat(new String(Base64.getDecoder().decode((String) response.get("patch")), StandardCharsets.UTF_8))
                    .isEqualTo("[{\"op\":\"add\",\"path\":\"/metadata/annotations\","
                            + "\"value\":{\"kvcache.gpustack.ai/injected\":\"{}\"}}]");
        }
    }

    @Test
    void kvcacheValidateAnswersTheFreezeRefusalAs403Forbidden() throws Exception {
        server.fakes.kvCacheFreeze = pod -> new Decision.Refuse(ReasonCode.FROZEN_RECORD,
                "frozen-record: annotation kvcache.gpustack.ai/injected on Pod team-a/chat-0 was edited");
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.post("/kvcache/validate",
                    Reviews.bytes(Reviews.update("uid-freeze", Reviews.optedInPod(), Reviews.optedInPod())));

            assertThat(r.status()).isEqualTo(200);
            Map<String, Object> response = Reviews.response(r.body());
            assertThat(response).containsEntry("allowed", false)
                    .containsEntry("status", Map.of("code", 403L, "reason", "Forbidden", "message",
                            "frozen-record: annotation kvcache.gpustack.ai/injected on Pod team-a/chat-0 was edited"))
                    .containsEntry("auditAnnotations", Map.of("refusal", "frozen-record"));
        }
    }

    @Test
    void cacheblendMutateAnswersASkipWithItsWarning() throws Exception {
        server.fakes.cacheBlendMutate = pod -> new Decision.Skip(ReasonCode.ENGINE_NOT_FOUND,
                "engine-not-found: CacheBlendEngine team-a/blend does not exist", List.of(PatchOp.add(
                "/metadata/annotations", Map.of("lmcache.ai/cacheblend-skip-reason", "engine-not-found"))));
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.post("/cacheblend/mutate",
                    Reviews.bytes(Reviews.create("uid-blend", Reviews.optedInPod())));

            Map<String, Object> response = Reviews.response(r.body());
            assertThat(response).containsEntry("allowed", true)
                    .containsEntry("warnings", List.of("engine-not-found: CacheBlendEngine team-a/blend does not exist"))
                    .containsEntry("auditAnnotations", Map.of("skip-reason", "engine-not-found"));
        }
        assertThat(server.fakes.calls).singleElement().satisfies(call ->
                assertThat(call.useCase()).isEqualTo("cacheblend-mutate"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "malformed JSON|{\"apiVersion\":|the body is not valid JSON",
            "wrong apiVersion|{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u\"}}|apiVersion is \"admission.k8s.io/v1beta1\"",
            "wrong kind|{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionResponse\",\"request\":{\"uid\":\"u\"}}|kind is \"AdmissionResponse\"",
            "missing request|{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}|request is missing",
            "missing uid|{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"operation\":\"CREATE\"}}|request.uid is missing",
            "duplicate keys|{\"apiVersion\":\"admission.k8s.io/v1\",\"apiVersion\":\"admission.k8s.io/v1\"}|Duplicate field 'apiVersion'",
    })
    void aBodyThatIsNotAUsableReviewIsA400WithAJsonError(String name, String body, String expected) throws Exception {
        long before = server.metrics.count(Webhook.KVCACHE_MUTATE, AdmissionOutcome.ERROR, "");
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.post("/kvcache/mutate", body.getBytes(StandardCharsets.UTF_8));

            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("content-type")).isEqualTo("application/json");
            Map<String, Object> error = Reviews.parse(r.body());
            assertThat(error).containsEntry("error", "bad-request");
            assertThat((String) error.get("message")).contains(expected);
            // the connection stays usable after a 400
            assertThat(c.get("/healthz").status()).isEqualTo(200);
        }
        assertThat(server.metrics.count(Webhook.KVCACHE_MUTATE, AdmissionOutcome.ERROR, "")).isEqualTo(before + 1);
        assertThat(server.fakes.calls).isEmpty();
    }

    @Test
    void aBodyOverTheLimitWithContentLengthIsA413() throws Exception {
        byte[] big = new byte[(int) LIMIT + 1];
        Arrays.fill(big, (byte) ' ');
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.post("/kvcache/mutate", big);
            assertThat(r.status()).isEqualTo(413);
            assertThat(Reviews.parse(r.body())).containsEntry("error", "payload-too-large");
            assertThat(r.text()).contains(LIMIT + " bytes");
            // the body was read and dropped, so the connection is still good for the next review
            assertThat(c.get("/healthz").status()).isEqualTo(200);
        }
    }

    @Test
    void aChunkedBodyOverTheLimitIsA413() throws Exception {
        byte[] big = new byte[(int) LIMIT * 3];
        Arrays.fill(big, (byte) ' ');
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.send("POST", "/cacheblend/mutate", big, true);
            assertThat(r.status()).isEqualTo(413);
            assertThat(Reviews.parse(r.body())).containsEntry("error", "payload-too-large");
        }
    }

    @Test
    void aChunkedBodyUnderTheLimitIsReviewed() throws Exception {
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.send("POST", "/kvcache/mutate",
                    Reviews.bytes(Reviews.create("uid-chunked", Reviews.optedInPod())), true);
            assertThat(r.status()).isEqualTo(200);
            assertThat(Reviews.response(r.body())).containsEntry("uid", "uid-chunked");
        }
    }

    @Test
    void anUpdateOnTheMutatePathIsAdmittedUnchanged() throws Exception {
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.post("/kvcache/mutate",
                    Reviews.bytes(Reviews.update("uid-upd", Reviews.optedInPod(), Reviews.optedInPod())));
            assertThat(r.status()).isEqualTo(200);
            assertThat(Reviews.response(r.body())).isEqualTo(Map.of("uid", "uid-upd", "allowed", true));
        }
        assertThat(server.fakes.calls).isEmpty();
        server.awaitLog("\"uid\":\"uid-upd\"");
        assertThat(server.log).anySatisfy(line -> assertThat(line).contains("\"level\":\"warn\"")
                .contains("\"uid\":\"uid-upd\""));
    }

    @Test
    void theAnswerReachesTheClientBeforeTheReviewsLogLineIsWritten() throws Exception {
        CountDownLatch answered = new CountDownLatch(1);
        AtomicReference<Boolean> answerCameFirst = new AtomicReference<>();
        server.beforeLog = line -> {
            if (line.contains("\"uid\":\"uid-log-after\"")) {
                try {
                    answerCameFirst.set(answered.await(10, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.post("/kvcache/mutate",
                    Reviews.bytes(Reviews.create("uid-log-after", Reviews.optedInPod())));
            answered.countDown();
            assertThat(r.status()).isEqualTo(200);
        } finally {
            server.beforeLog = line -> {
            };
        }
        server.awaitLog("\"uid\":\"uid-log-after\"");
        assertThat(answerCameFirst.get()).as("the client had the answer while the log line waited").isTrue();
        assertThat(server.log).filteredOn(l -> l.contains("\"uid\":\"uid-log-after\"")).singleElement().asString()
                .contains("\"event\":\"admission-review\"").contains("\"outcome\":\"admitted\"");
    }

    @Test
    void aCreateOnTheValidatePathAndANonPodAreAdmittedUnchanged() throws Exception {
        Map<String, Object> secret = Reviews.create("uid-secret", Map.of("kind", "Secret"));
        Reviews.with(secret, "kind", Map.of("group", "", "version", "v1", "kind", "Secret"));
        try (RawHttps c = connect()) {
            assertThat(Reviews.response(c.post("/kvcache/validate",
                    Reviews.bytes(Reviews.create("uid-create", Reviews.optedInPod()))).body()))
                    .isEqualTo(Map.of("uid", "uid-create", "allowed", true));
            assertThat(Reviews.response(c.post("/kvcache/mutate", Reviews.bytes(secret)).body()))
                    .isEqualTo(Map.of("uid", "uid-secret", "allowed", true));
        }
        assertThat(server.fakes.calls).isEmpty();
    }

    @Test
    void aUseCaseThatThrowsNeverBecomesA500() throws Exception {
        server.fakes.kvCacheMutate = pod -> {
            throw new IllegalStateException("boom");
        };
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.post("/kvcache/mutate",
                    Reviews.bytes(Reviews.create("uid-boom", Reviews.optedInPod())));
            assertThat(r.status()).isEqualTo(200);
            assertThat(Reviews.response(r.body())).containsEntry("allowed", false);
        }
    }

    @Test
    void anotherMethodOnAnAdmissionPathIs405() throws Exception {
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.get("/kvcache/mutate");
            assertThat(r.status()).isEqualTo(405);
            assertThat(r.header("allow")).isEqualTo("POST");
            assertThat(Reviews.parse(r.body())).containsEntry("error", "method-not-allowed");
        }
    }

    @Test
    void healthzIsOk() throws Exception {
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.get("/healthz");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("ok\n");
        }
    }

    @Test
    void readyzFollowsTheClusterViewSync() throws Exception {
        try (RawHttps c = connect()) {
            assertThat(c.get("/readyz").status()).isEqualTo(200);

            server.sync.set(new SyncState.NotSynced("KVCachePoolBinding informer has not listed yet"));
            RawHttps.Response r = c.get("/readyz");
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.text()).isEqualTo("not ready: the cluster view has not synced: KVCachePoolBinding informer"
                    + " has not listed yet\n");

            server.sync.set(SyncState.synced());
            assertThat(c.get("/readyz").status()).isEqualTo(200);
        }
    }

    @Test
    void metricsAreThePrometheusTextOfWhatWasAnswered() throws Exception {
        server.fakes.kvCacheMutate = pod -> new Decision.Refuse(ReasonCode.CONTAINER_AMBIGUOUS,
                "container-ambiguous: ...");
        try (RawHttps c = connect()) {
            long before = server.metrics.count(Webhook.KVCACHE_MUTATE, AdmissionOutcome.REFUSED, "container-ambiguous");
            c.post("/kvcache/mutate", Reviews.bytes(Reviews.create("m-1", Reviews.optedInPod())));
            c.post("/kvcache/mutate", Reviews.bytes(Reviews.create("m-2", Reviews.optedInPod())));

            RawHttps.Response r = c.get("/metrics");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("content-type")).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
            String text = r.text();
            assertThat(text).contains(
                    "# HELP kvcache_injector_admissions_total Admission reviews answered, by webhook,",
                    "# TYPE kvcache_injector_admissions_total counter\n",
                    "kvcache_injector_admissions_total{outcome=\"refused\",reason=\"container-ambiguous\","
                            + "webhook=\"kvcache/mutate\"} " + (double) (before + 2) + "\n",
                    "# TYPE kvcache_injector_admission_duration_seconds histogram\n",
                    "kvcache_injector_admission_duration_seconds_bucket{webhook=\"kvcache/mutate\",le=\"+Inf\"} ",
                    "# TYPE kvcache_injector_ready gauge\n",
                    "kvcache_injector_ready 1.0\n",
                    "# TYPE kvcache_injector_tls_reloads_total counter\n",
                    "kvcache_injector_tls_reloads_total{result=\"applied\"} 0.0\n",
                    "kvcache_injector_tls_reloads_total{result=\"failed\"} 0.0\n",
                    "# TYPE kvcache_injector_tls_certificate_expiry_timestamp_seconds gauge\n",
                    "kvcache_injector_tls_certificate_expiry_timestamp_seconds "
                            + (double) (CERT.serving().leaf().getNotAfter().getTime() / 1000) + "\n",
                    "# TYPE kvcache_injector_memory_limit_bytes gauge\n",
                    "kvcache_injector_memory_limit_bytes " + (double) TestServer.MEMORY_LIMIT + "\n");
            // zero from the start for every webhook, refused or not
            for (Webhook w : Webhook.values()) {
                assertThat(text).contains(
                        "kvcache_injector_admissions_total{outcome=\"error\",reason=\"\",webhook=\"" + w.path() + "\"} ",
                        "kvcache_injector_admissions_total{outcome=\"admitted\",reason=\"\",webhook=\"" + w.path() + "\"} ",
                        "kvcache_injector_admission_duration_seconds_count{webhook=\"" + w.path() + "\"} ");
            }
            assertThat(text).doesNotContain("# EOF", "_created");
        }
    }

    /** The client's standard JVM and process families, which the dashboard and alerts of the chart name. */
    @Test
    void metricsHaveTheClientsJvmAndProcessFamilies() throws Exception {
        try (RawHttps c = connect()) {
            String text = c.get("/metrics").text();
            assertThat(text).contains(
                    "# TYPE jvm_memory_used_bytes gauge\n",
                    "jvm_memory_used_bytes{area=\"heap\"} ",
                    "jvm_memory_committed_bytes{area=\"nonheap\"} ",
                    "jvm_memory_max_bytes{area=\"heap\"} ",
                    "jvm_memory_pool_used_bytes{pool=\"",
                    "# TYPE jvm_threads_current gauge\n",
                    "jvm_threads_daemon ",
                    "jvm_threads_state{state=\"RUNNABLE\"} ",
                    "# TYPE jvm_gc_collection_seconds summary\n",
                    "jvm_gc_collection_seconds_count{gc=\"",
                    "jvm_gc_collection_seconds_sum{gc=\"",
                    "jvm_classes_currently_loaded ",
                    "jvm_runtime_info{",
                    "# TYPE process_cpu_seconds_total counter\n",
                    "process_cpu_seconds_total ",
                    "process_start_time_seconds ",
                    "process_open_fds ",
                    "process_max_fds ",
                    "process_resident_memory_bytes ",
                    "process_virtual_memory_bytes ");
            assertThat(text).doesNotContain("jvm_memory_bytes_used");
        }
    }

    @Test
    void metricsAreOpenMetricsWhenTheScraperAsksForIt() throws Exception {
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.get("/metrics", "Accept",
                    "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1");

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("content-type")).isEqualTo("application/openmetrics-text; version=1.0.0; charset=utf-8");
            String text = r.text();
            assertThat(text).endsWith("# EOF\n").contains(
                    "# TYPE kvcache_injector_admissions counter\n",
                    "kvcache_injector_admissions_total{outcome=\"admitted\",reason=\"\",webhook=\"kvcache/mutate\"} ",
                    "# TYPE kvcache_injector_admission_duration_seconds histogram\n",
                    "# TYPE kvcache_injector_ready gauge\n",
                    "# TYPE jvm_memory_used_bytes gauge\n");
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "text/plain",
            "*/*",
            "application/json",
            "text/html;q=0.9, image/webp",
            // protobuf needs a module the server does not ship: the text Prometheus also accepts
            "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3"})
    void anyOtherAcceptGetsTheTextFormat(String accept) throws Exception {
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.get("/metrics", "Accept", accept);

            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("content-type")).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
            assertThat(r.text()).contains("# TYPE kvcache_injector_admissions_total counter\n").doesNotContain("# EOF");
        }
    }

    @Test
    void aPrometheusThatPrefersProtobufButTakesOpenMetricsGetsOpenMetrics() throws Exception {
        try (RawHttps c = connect()) {
            RawHttps.Response r = c.get("/metrics", "Accept",
                    "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.6,"
                            + "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3");

            assertThat(r.header("content-type")).startsWith("application/openmetrics-text; version=1.0.0");
            assertThat(r.text()).endsWith("# EOF\n");
        }
    }

    @Test
    void servesTls12ClientsAndOffersNothingOlder() throws Exception {
        try (RawHttps c = new RawHttps(client, server.port(), "TLSv1.2")) {
            assertThat(c.protocol()).isEqualTo("TLSv1.2");
            assertThat(c.get("/healthz").status()).isEqualTo(200);
        }
        try (RawHttps c = connect()) {
            assertThat(c.protocol()).isEqualTo("TLSv1.3");
        }
        assertThat(WebhookServer.helidonTls(new io.kvcacheinjector.adapters.http.tls.TlsMaterial(CERT.serving(),
                List.of()), TlsProfile.INTERMEDIATE).sslParameters().getProtocols())
                .containsExactly("TLSv1.3", "TLSv1.2");
    }

    @Test
    void presentsTheGeneratedCertificateForLocalhost() throws Exception {
        try (RawHttps c = connect()) {
            assertThat(c.serverCertificate()).isEqualTo(CERT.serving().leaf());
        }
    }
}
