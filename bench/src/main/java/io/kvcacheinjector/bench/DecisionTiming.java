package io.kvcacheinjector.bench;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.adapters.http.AdmissionAnswer;
import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.adapters.http.review.AdmissionResponseWriter;
import io.kvcacheinjector.adapters.http.review.AdmissionReviewReader;
import io.kvcacheinjector.adapters.http.review.ReviewReading;
import io.kvcacheinjector.adapters.http.review.ReviewRequest;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.Webhook;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The time of one admission without HTTP, measured in this process, one call at a time:
 * <ul>
 *   <li><b>decision</b>: the Pod as a JSON tree in memory → the use case's {@link Decision} → the JSON Patch bytes;</li>
 *   <li><b>handler</b>: the AdmissionReview bytes in memory → decode → decision → the encoded response bytes, through
 *       the server's {@link AdmissionHandler} (metrics and the log line formatted included).</li>
 * </ul>
 * Each is timed {@code runs} times after as many warm-up calls; the median is what counts (one slow call from a
 * garbage collection or a compilation does not move it).
 */
final class DecisionTiming {
    /** The medians and the 99th percentiles in nanoseconds, and the number of timed calls of each. */
    record Result(String review, long decisionMedianNanos, long decisionP99Nanos, long handlerMedianNanos,
                  long handlerP99Nanos, int runs) {
    }

    private DecisionTiming() {
    }

    /**
     * Times {@code review} (a body the real use cases answer with a patch) over {@code useCases}.
     *
     * @throws IllegalStateException when the review does not decode or is not answered with a patch
     */
    static Result measure(AdmissionUseCases useCases, BenchReview review, int runs) {
        if (review.webhook() != Webhook.KVCACHE_MUTATE && review.webhook() != Webhook.CACHEBLEND_MUTATE) {
            throw new IllegalArgumentException("the decision is timed on a mutating webhook");
        }
        byte[] body = review.body();
        ReviewRequest request = switch (new AdmissionReviewReader().read(body)) {
            case ReviewReading.Readable r -> r.request();
            case ReviewReading.Unreadable u -> throw new IllegalStateException(review.name() + " does not decode: "
                    + u.message());
        };
        Object pod = request.object().orElseThrow(() -> new IllegalStateException(review.name() + " has no object"));
        String namespace = request.namespace();
        long sink = 0;
        long[] decision = new long[runs];
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < runs; i++) {
                long t0 = System.nanoTime();
                byte[] patch = patchBytes(decide(useCases, review.webhook(), namespace, pod), review);
                long t1 = System.nanoTime();
                decision[i] = t1 - t0;
                sink += patch.length;
            }
        }
        AdmissionHandler handler = AdmissionHandler.quiet(useCases);
        long[] whole = new long[runs];
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < runs; i++) {
                long t0 = System.nanoTime();
                AdmissionAnswer answer = handler.handle(review.webhook(), body);
                long t1 = System.nanoTime();
                whole[i] = t1 - t0;
                sink += answer.status();
            }
        }
        if (sink == 0) {
            throw new IllegalStateException("nothing was produced");
        }
        Arrays.sort(decision);
        Arrays.sort(whole);
        return new Result(review.name(), median(decision), p99(decision), median(whole), p99(whole), runs);
    }

    private static Decision decide(AdmissionUseCases useCases, Webhook webhook, String namespace, Object pod) {
        return webhook == Webhook.CACHEBLEND_MUTATE
                ? useCases.cacheBlendMutate().mutate(namespace, new ReceivedPod(pod))
                : useCases.kvCacheMutate().mutate(namespace, new ReceivedPod(pod));
    }

    private static byte[] patchBytes(Decision decision, BenchReview review) {
        if (decision instanceof Decision.Admit admit && !admit.patch().isEmpty()) {
            return AdmissionResponseWriter.patchJson(admit.patch()).getBytes(StandardCharsets.UTF_8);
        }
        throw new IllegalStateException(review.name() + " was not answered with a patch but with " + decision);
    }

    private static long median(long[] sorted) {
        return sorted[sorted.length / 2];
    }

    private static long p99(long[] sorted) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)];
    }
}
