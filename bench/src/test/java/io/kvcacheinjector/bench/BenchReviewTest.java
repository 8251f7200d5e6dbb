package io.kvcacheinjector.bench;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.AdmissionAnswer;
import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.adapters.http.review.AdmissionReviewReader;
import io.kvcacheinjector.adapters.http.review.ReviewReading;
import io.kvcacheinjector.adapters.http.review.ReviewRequest;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.domain.json.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The embedded reviews and cluster: what the bench sends is what it claims to send, and is answered as it expects. */
class BenchReviewTest {
    private static Path cluster;
    private static AdmissionHandler real;

    @BeforeAll
    static void wire() throws Exception {
        cluster = ExampleCluster.writeToTemporaryDirectory();
        real = AdmissionHandler.quiet(BenchFixtures.realUseCases(cluster));
    }

    @AfterAll
    static void clean() {
        ExampleCluster.delete(cluster);
    }

    @Test
    void theEmbeddedClusterIsTheDocsExampleCluster() throws Exception {
        for (String file : ExampleCluster.FILES) {
            assertThat(new String(ExampleCluster.read(file), StandardCharsets.UTF_8)).as(file)
                    .isEqualTo(Files.readString(Path.of("..", "docs", "examples", "cluster", file)));
        }
    }

    @Test
    void everyEmbeddedReviewGetsTheAnswerTheBenchExpectsFromTheRealWebhook() {
        assertThat(BenchReview.all()).extracting(BenchReview::name)
                .containsExactly("vllm", "vllm-ascend", "sglang", "cacheblend", "wide", "refused");
        for (BenchReview review : BenchReview.all()) {
            AdmissionAnswer answer = real.handle(review.webhook(), review.body());
            assertThat(answer.status()).as(review.name()).isEqualTo(200);
            assertThat(review.mismatch(answer.body())).as(review.name() + ": " + answer.bodyText()).isEmpty();
        }
    }

    @Test
    void theRefusedReviewIsRefusedForTheShellWithAMessageNamingTheFix() {
        BenchReview refused = BenchReview.named("refused");
        String text = real.handle(refused.webhook(), refused.body()).bodyText();
        assertThat(text).contains("\"allowed\":false").contains("launch-shell-c: container \\\"server\\\"")
                .contains("Launch the engine directly");
    }

    @Test
    void theBaselinesPlainAdmissionIsNotMistakenForTheRealAnswer() {
        AdmissionHandler baseline = AdmissionHandler.quiet(BenchServers.admitEverything());
        for (BenchReview review : BenchReview.httpMix()) {
            byte[] answer = baseline.handle(review.webhook(), review.body()).body();
            assertThat(review.baselineMismatch(answer)).as(review.name()).isEmpty();
            assertThat(review.mismatch(answer)).as(review.name()).hasValueSatisfying(m ->
                    assertThat(m).startsWith(review.name() + ": expected"));
        }
    }

    @Test
    void aRefusalForAnotherReasonIsAMismatch() {
        BenchReview refused = BenchReview.named("refused");
        byte[] other = ("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"u\","
                + "\"allowed\":false,\"auditAnnotations\":{\"refusal\":\"binding-not-found\"}}}").getBytes(StandardCharsets.UTF_8);
        assertThat(refused.mismatch(other)).hasValueSatisfying(m -> assertThat(m)
                .contains("expected the refusal launch-shell-c").contains("binding-not-found"));
        assertThat(refused.mismatch("not json".getBytes(StandardCharsets.UTF_8))).hasValueSatisfying(m ->
                assertThat(m).contains("not an AdmissionReview response"));
    }

    @Test
    void theWideReviewHasFiveContainersAndSixtyEnvEntries() {
        Map<?, ?> review = (Map<?, ?>) Json.parse(new String(BenchReview.named("wide").body(), StandardCharsets.UTF_8))
                .orElseThrow();
        Map<?, ?> spec = (Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) review.get("request")).get("object")).get("spec");
        List<?> containers = (List<?>) spec.get("containers");
        assertThat(containers).hasSize(5);
        int env = containers.stream().mapToInt(c -> ((List<?>) ((Map<?, ?>) c).get("env")).size()).sum();
        assertThat(env).isEqualTo(60);
    }

    @Test
    void everyReviewIsARealisticCreateOfADefaultedPod() {
        for (BenchReview review : BenchReview.all()) {
            String body = new String(review.body(), StandardCharsets.UTF_8);
            assertThat(body).as(review.name()).contains("\"operation\":\"CREATE\"").contains("\"managedFields\"")
                    .contains("kube-api-access").contains("\"userInfo\"");
            assertThat(review.size()).as(review.name()).isGreaterThan(4000);
        }
        assertThat(BenchReview.named("cacheblend").webhook()).isEqualTo(Webhook.CACHEBLEND_MUTATE);
    }

    @Test
    void theDecodedPodIsNotChangedByTheDecisionSoTheInMemoryTimingCanReuseIt() {
        AdmissionUseCases useCases = BenchFixtures.realUseCases(cluster);
        for (BenchReview review : BenchReview.all()) {
            ReviewRequest request = ((ReviewReading.Readable) new AdmissionReviewReader().read(review.body())).request();
            Object pod = request.object().orElseThrow();
            String before = Json.write(pod);
            Decision first = review.webhook() == Webhook.CACHEBLEND_MUTATE
                    ? useCases.cacheBlendMutate().mutate(request.namespace(), new ReceivedPod(pod))
                    : useCases.kvCacheMutate().mutate(request.namespace(), new ReceivedPod(pod));
            Decision second = review.webhook() == Webhook.CACHEBLEND_MUTATE
                    ? useCases.cacheBlendMutate().mutate(request.namespace(), new ReceivedPod(pod))
                    : useCases.kvCacheMutate().mutate(request.namespace(), new ReceivedPod(pod));
            assertThat(Json.write(pod)).as(review.name()).isEqualTo(before);
            assertThat(second).as(review.name()).isEqualTo(first);
        }
        DecisionTiming.Result timing = DecisionTiming.measure(useCases, BenchReview.named("vllm"), 3);
        assertThat(timing.runs()).isEqualTo(3);
        assertThat(timing.decisionMedianNanos()).isPositive();
        assertThat(timing.handlerMedianNanos()).isGreaterThanOrEqualTo(timing.decisionMedianNanos() / 10);
    }
}
