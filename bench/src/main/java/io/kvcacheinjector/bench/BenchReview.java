package io.kvcacheinjector.bench;

import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.domain.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One embedded AdmissionReview body (a Pod as the API server sends it on CREATE: defaulted, with the service
 * account volume, tolerations and managed fields) and what the real webhook must answer for it over the example
 * cluster. The bodies live under {@code io/kvcacheinjector/app/serve/warmup/reviews/} (in the app's jar: {@code serve}'s warm-up sends them too).
 *
 * @param name     the body's name, its file name without {@code .json}
 * @param webhook  the endpoint it is sent to
 * @param body     the request body
 * @param expected what the real webhook answers
 * @param refusal  for a refused body, the refusal code; empty otherwise
 */
public record BenchReview(String name, Webhook webhook, byte[] body, Expected expected, String refusal) {
    /** What the real webhook answers for a body. */
    public enum Expected {
        /** Allowed with a JSON Patch. */
        PATCHED,
        /** Denied with a catalogue refusal. */
        REFUSED
    }

    private static final String RESOURCES = "/io/kvcacheinjector/app/serve/warmup/reviews/";

    public BenchReview {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(webhook, "webhook");
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(refusal, "refusal");
        body = body.clone();
    }

    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The body's size in bytes. */
    public int size() {
        return body.length;
    }

    /**
     * The mix the HTTP measurement sends, in turn on every connection: a vLLM Pod (the README's Deployment,
     * decode role), an SGLang Pod, a Pod with 5 containers and 60 env entries whose engine container is named by
     * annotation, and a Pod refused because {@code sh -c} would swallow the appended flags.
     */
    public static List<BenchReview> httpMix() {
        return List.of(load("vllm", Webhook.KVCACHE_MUTATE, Expected.PATCHED, ""),
                load("sglang", Webhook.KVCACHE_MUTATE, Expected.PATCHED, ""),
                load("wide", Webhook.KVCACHE_MUTATE, Expected.PATCHED, ""),
                load("refused", Webhook.KVCACHE_MUTATE, Expected.REFUSED, "launch-shell-c"));
    }

    /** Every embedded body: the HTTP mix, a vLLM-Ascend Pod and a CacheBlend Pod (on {@code /cacheblend/mutate}). */
    public static List<BenchReview> all() {
        List<BenchReview> mix = httpMix();
        return List.of(mix.get(0), load("vllm-ascend", Webhook.KVCACHE_MUTATE, Expected.PATCHED, ""), mix.get(1),
                load("cacheblend", Webhook.CACHEBLEND_MUTATE, Expected.PATCHED, ""), mix.get(2), mix.get(3));
    }

    /** The body named {@code name} (one of {@link #all()}). */
    public static BenchReview named(String name) {
        return all().stream().filter(r -> r.name.equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no embedded review named \"" + name + "\""));
    }

    private static BenchReview load(String name, Webhook webhook, Expected expected, String refusal) {
        String path = RESOURCES + name + ".json";
        try (InputStream in = BenchReview.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("the bench review " + path + " is missing from the jar");
            }
            return new BenchReview(name, webhook, in.readAllBytes(), expected, refusal);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the bench review " + path, e);
        }
    }

    /**
     * Why {@code responseBody} (an HTTP 200 body) is not what the real webhook must answer for this review;
     * empty when it is.
     */
    public Optional<String> mismatch(byte[] responseBody) {
        Optional<Map<?, ?>> response = response(responseBody);
        if (response.isEmpty()) {
            return Optional.of(name + ": the answer is not an AdmissionReview response: " + preview(responseBody));
        }
        Map<?, ?> r = response.get();
        return switch (expected) {
            case PATCHED -> Boolean.TRUE.equals(r.get("allowed")) && "JSONPatch".equals(r.get("patchType"))
                    && r.get("patch") instanceof String p && !p.isEmpty()
                    ? Optional.empty()
                    : Optional.of(name + ": expected an admission with a JSON Patch, got " + preview(responseBody));
            case REFUSED -> Boolean.FALSE.equals(r.get("allowed")) && r.get("auditAnnotations") instanceof Map<?, ?> a
                    && refusal.equals(a.get("refusal"))
                    ? Optional.empty()
                    : Optional.of(name + ": expected the refusal " + refusal + ", got " + preview(responseBody));
        };
    }

    /** Why {@code responseBody} is not a plain admission without a patch (what the baseline answers). */
    public Optional<String> baselineMismatch(byte[] responseBody) {
        Optional<Map<?, ?>> response = response(responseBody);
        if (response.isPresent() && Boolean.TRUE.equals(response.get().get("allowed"))
                && !response.get().containsKey("patch")) {
            return Optional.empty();
        }
        return Optional.of(name + ": expected the baseline's plain admission, got " + preview(responseBody));
    }

    private static Optional<Map<?, ?>> response(byte[] responseBody) {
        Optional<Object> parsed = Json.parse(new String(responseBody, StandardCharsets.UTF_8));
        if (parsed.isPresent() && parsed.get() instanceof Map<?, ?> review
                && review.get("response") instanceof Map<?, ?> response) {
            return Optional.of(response);
        }
        return Optional.empty();
    }

    private static String preview(byte[] body) {
        String s = new String(body, StandardCharsets.UTF_8);
        return s.length() <= 300 ? s : s.substring(0, 300) + "…";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BenchReview r && r.name.equals(name) && r.webhook == webhook
                && java.util.Arrays.equals(r.body, body) && r.expected == expected && r.refusal.equals(refusal);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return "BenchReview[" + name + ", " + webhook.path() + ", " + body.length + " bytes, " + expected + "]";
    }
}
