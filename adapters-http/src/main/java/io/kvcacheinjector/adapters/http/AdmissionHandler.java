package io.kvcacheinjector.adapters.http;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.adapters.http.review.AdmissionResponseWriter;
import io.kvcacheinjector.adapters.http.review.AdmissionReviewReader;
import io.kvcacheinjector.adapters.http.review.ReviewReading;
import io.kvcacheinjector.adapters.http.review.ReviewRequest;
import io.kvcacheinjector.adapters.http.telemetry.AdmissionMetrics;
import io.kvcacheinjector.adapters.http.telemetry.AdmissionOutcome;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.Webhook;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * One admission review, framework-neutral: request bytes and the webhook they arrived on in, HTTP status and
 * response bytes out — decode, use case, encode, and nothing else. Each review records one metric sample and writes
 * one JSON log line. The {@code review} command calls {@link #handle}, which writes the line before it returns; the
 * server's admission routes call {@link #answer}, which leaves the line to be written after the answer is sent, so
 * that the API server does not wait for the log (issue 32). It never throws and never answers 500.
 *
 * <ul>
 *   <li>Not an {@code admission.k8s.io/v1} AdmissionReview, or no {@code request}/{@code uid}, or the object the
 *       operation needs is missing: 400 with {@code {"error":"bad-request","message":...}}; outcome {@code error}.</li>
 *   <li>A review this webhook does not judge (not a core Pod, a subresource, or another operation than the
 *       endpoint's: CREATE for the mutating webhooks, UPDATE for the freeze): admitted unchanged, warning-level log,
 *       outcome {@code admitted}.</li>
 *   <li>Otherwise the use case's {@link Decision}, encoded by {@link AdmissionResponseWriter}.</li>
 *   <li>A use case that fails (throws): on a fail-open webhook, admitted unchanged with a warning; on a
 *       fail-closed one, denied with status 500 {@code InternalError}; outcome {@code error}, error-level log.</li>
 * </ul>
 */
public final class AdmissionHandler {
    /** The log event name of the per-review line. */
    public static final String REVIEW_EVENT = "admission-review";
    /** Webhooks registered with {@code failurePolicy: Ignore} by default: a failure admits. */
    public static final Set<Webhook> DEFAULT_FAIL_OPEN =
            Set.copyOf(EnumSet.of(Webhook.KVCACHE_VALIDATE, Webhook.CACHEBLEND_MUTATE));

    private final AdmissionUseCases useCases;
    private final Set<Webhook> failOpen;
    private final AdmissionMetrics metrics;
    private final JsonLog log;
    private final LongSupplier nanoTime;
    private final AdmissionReviewReader reader = new AdmissionReviewReader();

    /**
     * @param useCases the use cases behind the three webhooks
     * @param failOpen the webhooks that admit when their use case fails (as their {@code failurePolicy: Ignore}
     *                 would); the others deny
     * @param metrics  where each review is counted and timed
     * @param log      where the one line per review goes
     */
    public AdmissionHandler(AdmissionUseCases useCases, Set<Webhook> failOpen, AdmissionMetrics metrics, JsonLog log) {
        this(useCases, failOpen, metrics, log, System::nanoTime);
    }

    AdmissionHandler(AdmissionUseCases useCases, Set<Webhook> failOpen, AdmissionMetrics metrics, JsonLog log,
                     LongSupplier nanoTime) {
        this.useCases = Objects.requireNonNull(useCases, "useCases");
        this.failOpen = Set.copyOf(failOpen);
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.log = Objects.requireNonNull(log, "log");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    /** A handler with its own metrics, no log output and the default fail-open set (for the {@code review} command). */
    public static AdmissionHandler quiet(AdmissionUseCases useCases) {
        return new AdmissionHandler(useCases, DEFAULT_FAIL_OPEN, new AdmissionMetrics(), JsonLog.discard());
    }

    /**
     * An answer and its review's log line, not yet written: {@link #writeLog} writes it, at most once. The metric
     * sample is already recorded.
     */
    public static final class Answered {
        private final AdmissionAnswer answer;
        private Runnable logLine;

        Answered(AdmissionAnswer answer, Runnable logLine) {
            this.answer = answer;
            this.logLine = logLine;
        }

        public AdmissionAnswer answer() {
            return answer;
        }

        /** Writes the review's log line, unless it has been written already. */
        public void writeLog() {
            Runnable line = logLine;
            logLine = null;
            if (line != null) {
                line.run();
            }
        }

        AdmissionAnswer logged() {
            writeLog();
            return answer;
        }
    }

    /** Answers one AdmissionReview {@code body} that arrived on {@code webhook}, and writes its log line. */
    public AdmissionAnswer handle(Webhook webhook, byte[] body) {
        return answer(webhook, body).logged();
    }

    /**
     * Answers one AdmissionReview {@code body} that arrived on {@code webhook}; the caller sends the answer, then
     * writes the log line with {@link Answered#writeLog}.
     */
    public Answered answer(Webhook webhook, byte[] body) {
        long start = nanoTime.getAsLong();
        Objects.requireNonNull(webhook, "webhook");
        byte[] bytes = body == null ? new byte[0] : body;
        // Decoding a body costs up to ~20x its size in heap (a 3 MiB body of tiny objects: ~65 MB). Bodies are
        // decoded and decided concurrently only up to DECODE_BUDGET_KIB of body bytes at a time, so a few hostile
        // near-limit bodies arriving together queue here instead of exhausting a small heap. The body is already
        // read, so a stalled client never holds the budget; ordinary reviews (kilobytes) are not held back.
        int permits = (int) Math.min(DECODE_BUDGET_KIB, Math.max(1, bytes.length / 1024));
        decodeBudget.acquireUninterruptibly(permits);
        try {
            ReviewReading reading = reader.read(bytes);
            return switch (reading) {
                case ReviewReading.Unreadable bad -> badRequest(webhook, start, bad.uid(), bad.message());
                case ReviewReading.Readable ok -> review(webhook, start, ok.request());
            };
        } finally {
            decodeBudget.release(permits);
        }
    }

    /** Body bytes (KiB) decoded and decided at once, across all requests: one default-limit (3 MiB) body. */
    static final int DECODE_BUDGET_KIB = 3 * 1024;
    private final java.util.concurrent.Semaphore decodeBudget = new java.util.concurrent.Semaphore(DECODE_BUDGET_KIB);

    /**
     * Answers a request whose body exceeds {@code limitBytes} (HTTP 413); the caller has not read it all. Counted
     * and logged like any review that could not be read.
     */
    public AdmissionAnswer payloadTooLarge(Webhook webhook, long limitBytes) {
        long start = nanoTime.getAsLong();
        return httpError(webhook, start, 413, "payload-too-large",
                "the AdmissionReview body is larger than the limit of " + limitBytes
                        + " bytes (--max-body-bytes); raise the limit if Pods this large are expected", "").logged();
    }

    /**
     * Answers a request refused before its body was read, with an HTTP {@code status} and a JSON error (for
     * example 403 when a client certificate is required but absent). Counted and logged as an {@code error}.
     */
    public AdmissionAnswer rejected(Webhook webhook, int status, String error, String message) {
        return httpError(webhook, nanoTime.getAsLong(), status, error, message, "").logged();
    }

    private Answered badRequest(Webhook webhook, long start, String uid, String message) {
        return httpError(webhook, start, 400, "bad-request", message, uid);
    }

    private Answered httpError(Webhook webhook, long start, int status, String error, String message,
                               String uid) {
        byte[] body = AdmissionResponseWriter.error(error, message);
        long duration = nanoTime.getAsLong() - start;
        metrics.record(webhook, AdmissionOutcome.ERROR, "", duration);
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("uid", uid.isEmpty() ? null : uid);
        line.put("webhook", webhook.path());
        line.put("outcome", AdmissionOutcome.ERROR.label());
        line.put("httpStatus", status);
        line.put("durationMs", millis(duration));
        line.put("message", message);
        return new Answered(new AdmissionAnswer(status, body), () -> write(JsonLog.Level.WARN, line));
    }

    private Answered review(Webhook webhook, long start, ReviewRequest request) {
        Optional<String> notJudged = notJudgedHere(webhook, request);
        if (notJudged.isPresent()) {
            byte[] body = AdmissionResponseWriter.admittedUnchanged(request.uid(), List.of());
            return new Answered(new AdmissionAnswer(200, body), finish(webhook, start, request,
                    AdmissionOutcome.ADMITTED, "", List.of(), JsonLog.Level.WARN, Map.of("note", notJudged.get())));
        }
        Optional<String> missing = missingObject(webhook, request);
        if (missing.isPresent()) {
            return badRequest(webhook, start, request.uid(), missing.get());
        }

        Decision decision;
        byte[] body;
        try {
            decision = decide(webhook, request);
            body = AdmissionResponseWriter.decision(request.uid(), decision);
        } catch (RuntimeException | StackOverflowError | LinkageError e) {
            return internalFailure(webhook, start, request, e);
        }

        Map<String, Object> extra = new LinkedHashMap<>();
        AdmissionOutcome outcome;
        String reason;
        List<String> warningCodes = List.of();
        switch (decision) {
            case Decision.Admit admit -> {
                outcome = AdmissionOutcome.ADMITTED;
                reason = "";
                warningCodes = admit.warnings().stream().map(w -> w.code().id()).distinct().toList();
                if (!admit.warnings().isEmpty()) {
                    extra.put("warningMessages", admit.warnings().stream().map(Warning::message).toList());
                }
                extra.put("patchOps", admit.patch().size());
            }
            case Decision.Refuse refuse -> {
                outcome = AdmissionOutcome.REFUSED;
                reason = refuse.reason();
                extra.put("message", refuse.message());
            }
            case Decision.Skip skip -> {
                outcome = AdmissionOutcome.SKIPPED;
                reason = skip.code().id();
                extra.put("message", skip.message());
            }
        }
        return new Answered(new AdmissionAnswer(200, body),
                finish(webhook, start, request, outcome, reason, warningCodes, JsonLog.Level.INFO, extra));
    }

    private Decision decide(Webhook webhook, ReviewRequest request) {
        Object object = request.object().orElseThrow();
        Decision decision = switch (webhook) {
            case KVCACHE_MUTATE -> useCases.kvCacheMutate().mutate(request.namespace(), new ReceivedPod(object));
            case KVCACHE_VALIDATE -> useCases.kvCacheFreeze().validate(request.namespace(),
                    new ReceivedPod(request.oldObject().orElseThrow()), new ReceivedPod(object));
            case CACHEBLEND_MUTATE -> useCases.cacheBlendMutate().mutate(request.namespace(), new ReceivedPod(object));
        };
        return Objects.requireNonNull(decision, "the use case returned no decision");
    }

    private Answered internalFailure(Webhook webhook, long start, ReviewRequest request, Throwable e) {
        byte[] body;
        String note;
        if (failOpen.contains(webhook)) {
            body = AdmissionResponseWriter.admittedUnchanged(request.uid(), List.of(
                    "kvcache-injector: internal error, Pod admitted unchanged; see its log for uid " + request.uid()));
            note = "the use case failed; admitted unchanged because " + webhook.path() + " fails open";
        } else {
            body = AdmissionResponseWriter.internalFailure(request.uid(),
                    "kvcache-injector failed internally while reviewing this Pod and changed nothing; create the Pod "
                            + "again, and if this persists report the webhook's log line for uid " + request.uid());
            note = "the use case failed; denied because " + webhook.path() + " fails closed";
        }
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("note", note);
        extra.put("exception", e.getClass().getName());
        extra.put("exceptionMessage", firstLine(e.getMessage()));
        extra.put("at", origin(e));
        return new Answered(new AdmissionAnswer(200, body),
                finish(webhook, start, request, AdmissionOutcome.ERROR, "", List.of(), JsonLog.Level.ERROR, extra));
    }

    /** Records the metric sample now; returns the writing of the log line, for after the answer is sent. */
    private Runnable finish(Webhook webhook, long start, ReviewRequest request, AdmissionOutcome outcome,
                            String reason, List<String> warningCodes, JsonLog.Level level, Map<String, Object> extra) {
        long duration = nanoTime.getAsLong() - start;
        metrics.record(webhook, outcome, reason, duration);
        return () -> write(level, line(webhook, request, outcome, reason, warningCodes, duration, extra));
    }

    private static Map<String, Object> line(Webhook webhook, ReviewRequest request, AdmissionOutcome outcome,
                                            String reason, List<String> warningCodes, long duration,
                                            Map<String, Object> extra) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("uid", request.uid());
        line.put("namespace", request.namespace());
        String name = request.objectName();
        if (!name.isEmpty()) {
            line.put("name", name);
        } else {
            String generateName = request.objectGenerateName();
            line.put("generateName", generateName.isEmpty() ? null : generateName);
        }
        line.put("webhook", webhook.path());
        line.put("operation", request.operation().isEmpty() ? null : request.operation());
        line.put("outcome", outcome.label());
        line.put("reason", reason.isEmpty() ? null : reason);
        line.put("warnings", warningCodes.isEmpty() ? null : warningCodes);
        line.put("durationMs", millis(duration));
        line.put("dryRun", request.dryRun() ? Boolean.TRUE : null);
        line.putAll(extra);
        return line;
    }

    private void write(JsonLog.Level level, Map<String, Object> line) {
        try {
            log.log(level, REVIEW_EVENT, line);
        } catch (RuntimeException e) {
            // a broken log sink must not turn an answer into a 500
        }
    }

    /** Why this review is outside what {@code webhook} judges, if it is. */
    static Optional<String> notJudgedHere(Webhook webhook, ReviewRequest request) {
        if (request.kind().isPresent()) {
            if (!request.kind().get().isPod()) {
                return Optional.of("request.kind is " + request.kind().get() + ", not a core/v1 Pod; check the"
                        + " webhook's rules (resources: [\"pods\"])");
            }
        } else if (!request.objectKind().isEmpty() && !request.objectKind().equals("Pod")) {
            return Optional.of("the object's kind is " + request.objectKind() + ", not Pod; check the webhook's rules");
        }
        if (!request.subResource().isEmpty()) {
            return Optional.of("subresource pods/" + request.subResource() + " is not reviewed; check the webhook's"
                    + " rules (resources: [\"pods\"] only)");
        }
        String expected = webhook == Webhook.KVCACHE_VALIDATE ? "UPDATE" : "CREATE";
        if (!request.operation().isEmpty() && !request.operation().equals(expected)) {
            return Optional.of("operation " + request.operation() + " is not reviewed on /" + webhook.path()
                    + ", which judges " + expected + " only; check the webhook's operations");
        }
        return Optional.empty();
    }

    private static Optional<String> missingObject(Webhook webhook, ReviewRequest request) {
        if (request.object().isEmpty()) {
            return Optional.of("request.object is missing; a Pod " + (webhook == Webhook.KVCACHE_VALIDATE
                    ? "UPDATE" : "CREATE") + " review carries the Pod in request.object");
        }
        if (webhook == Webhook.KVCACHE_VALIDATE && request.oldObject().isEmpty()) {
            return Optional.of("request.oldObject is missing; a Pod UPDATE review carries the stored Pod in"
                    + " request.oldObject");
        }
        return Optional.empty();
    }

    private static BigDecimal millis(long nanos) {
        return BigDecimal.valueOf(Math.max(0, nanos)).movePointLeft(6).setScale(3, RoundingMode.HALF_UP);
    }

    private static String firstLine(String s) {
        if (s == null) {
            return null;
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static String origin(Throwable e) {
        List<String> frames = new ArrayList<>();
        for (StackTraceElement el : e.getStackTrace()) {
            frames.add(el.toString());
            if (frames.size() == 5) {
                break;
            }
        }
        return String.join(" <- ", frames);
    }
}
