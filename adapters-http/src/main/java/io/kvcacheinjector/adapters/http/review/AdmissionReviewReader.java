package io.kvcacheinjector.adapters.http.review;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a request body as an {@code admission.k8s.io/v1} AdmissionReview. The objects under review are decoded
 * as plain trees ({@code Map}/{@code List}/{@code String}/{@code Long}/{@code BigDecimal}/{@code Boolean}), the
 * same shapes {@code domain.json.Json} reads, so the use cases see a Pod exactly as received.
 *
 * <p>Integers are {@code Long} (or {@code BigInteger} beyond its range), fractions {@code BigDecimal}.
 *
 * <p>Rejected (as {@link ReviewReading.Unreadable}, an HTTP 400): a body that is not exactly one JSON object,
 * duplicate keys at any depth, nesting deeper than {@value #MAX_NESTING_DEPTH}, another {@code apiVersion} or
 * {@code kind}, a missing {@code request} or {@code request.uid}, and envelope fields of the wrong JSON type.
 */
public final class AdmissionReviewReader {
    /** The only AdmissionReview version this webhook speaks. */
    public static final String API_VERSION = "admission.k8s.io/v1";
    /** The envelope's kind. */
    public static final String KIND = "AdmissionReview";
    /** The deepest nesting accepted; a Pod needs about 15 levels inside a review. */
    public static final int MAX_NESTING_DEPTH = 256;

    private final ObjectMapper mapper;

    public AdmissionReviewReader() {
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build())
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
        this.mapper = JsonMapper.builder(factory)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
    }

    /** Reads {@code body}; never throws. */
    public ReviewReading read(byte[] body) {
        Object root;
        try {
            root = widenInts(mapper.readValue(body, Object.class));
        } catch (StreamConstraintsException e) {
            return unreadable("the body nests JSON deeper than " + MAX_NESTING_DEPTH
                    + " levels or exceeds another parser limit (" + e.getOriginalMessage() + ")", "");
        } catch (MismatchedInputException e) {
            if (body.length == 0 || isBlank(body)) {
                return unreadable("the body is empty; an AdmissionReview JSON object was expected", "");
            }
            return unreadable("the body is not valid JSON: " + describe(e), "");
        } catch (JsonProcessingException e) {
            return unreadable("the body is not valid JSON: " + describe(e), "");
        } catch (IOException | RuntimeException e) {
            return unreadable("the body could not be read as JSON (" + e.getClass().getSimpleName() + ")", "");
        }
        if (!(root instanceof Map<?, ?> review)) {
            return unreadable("the body is " + jsonType(root) + ", not an AdmissionReview object", "");
        }

        Object apiVersion = review.get("apiVersion");
        if (!API_VERSION.equals(apiVersion)) {
            String got = apiVersion == null ? "missing" : "\"" + String.valueOf(apiVersion) + "\"";
            return unreadable("apiVersion is " + got + "; this webhook answers only " + API_VERSION
                    + " (register it with admissionReviewVersions: [\"v1\"])", "");
        }
        Object kind = review.get("kind");
        if (!KIND.equals(kind)) {
            String got = kind == null ? "missing" : "\"" + String.valueOf(kind) + "\"";
            return unreadable("kind is " + got + "; expected " + KIND, "");
        }
        Object requestValue = review.get("request");
        if (!(requestValue instanceof Map<?, ?> request)) {
            return unreadable(requestValue == null
                    ? "request is missing; an AdmissionReview sent to a webhook carries the request to review"
                    : "request is " + jsonType(requestValue) + ", not an object", "");
        }
        Object uidValue = request.get("uid");
        if (!(uidValue instanceof String uid) || uid.isBlank()) {
            return unreadable(uidValue == null
                    ? "request.uid is missing; the API server matches the answer to its request by this uid"
                    : "request.uid must be a non-empty string, not " + jsonType(uidValue), "");
        }

        Optional<ReviewRequest.ResourceKind> resourceKind;
        Object kindValue = request.get("kind");
        if (kindValue == null) {
            resourceKind = Optional.empty();
        } else if (kindValue instanceof Map<?, ?> gvk) {
            Optional<String> wrong = firstNonString(gvk, "request.kind.", List.of("group", "version", "kind"));
            if (wrong.isPresent()) {
                return unreadable(wrong.get(), uid);
            }
            resourceKind = Optional.of(new ReviewRequest.ResourceKind(string(gvk, "group"), string(gvk, "version"),
                    string(gvk, "kind")));
        } else {
            return unreadable("request.kind is " + jsonType(kindValue) + ", not an object", uid);
        }

        Optional<String> wrong = firstNonString(request, "request.",
                List.of("operation", "namespace", "name", "subResource"));
        if (wrong.isPresent()) {
            return unreadable(wrong.get(), uid);
        }
        Object dryRunValue = request.get("dryRun");
        if (dryRunValue != null && !(dryRunValue instanceof Boolean)) {
            return unreadable("request.dryRun is " + jsonType(dryRunValue) + ", not a boolean", uid);
        }

        return new ReviewReading.Readable(new ReviewRequest(uid, resourceKind, string(request, "subResource"),
                string(request, "operation"), string(request, "namespace"), string(request, "name"),
                Optional.ofNullable(request.get("object")), Optional.ofNullable(request.get("oldObject")),
                Boolean.TRUE.equals(dryRunValue)));
    }

    /**
     * Jackson reads small integers as {@code Integer}, larger ones as {@code Long} or {@code BigInteger}; the domain
     * reads every integer that fits as {@code Long}. Widens in place (the containers are Jackson's mutable ones).
     */
    @SuppressWarnings("unchecked")
    private static Object widenInts(Object value) {
        if (value instanceof Integer i) {
            return i.longValue();
        }
        if (value instanceof Map<?, ?> map) {
            ((Map<Object, Object>) map).replaceAll((k, v) -> widenInts(v));
        } else if (value instanceof List<?> list) {
            ((List<Object>) list).replaceAll(AdmissionReviewReader::widenInts);
        }
        return value;
    }

    private static ReviewReading.Unreadable unreadable(String message, String uid) {
        return new ReviewReading.Unreadable(message, uid);
    }

    private static Optional<String> firstNonString(Map<?, ?> map, String prefix, List<String> fields) {
        for (String field : fields) {
            Object v = map.get(field);
            if (v != null && !(v instanceof String)) {
                return Optional.of(prefix + field + " is " + jsonType(v) + ", not a string");
            }
        }
        return Optional.empty();
    }

    private static String string(Map<?, ?> map, String field) {
        return map.get(field) instanceof String s ? s : "";
    }

    /** The JSON type of a decoded value, with its article, for messages. */
    static String jsonType(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Map<?, ?>) {
            return "an object";
        }
        if (value instanceof List<?>) {
            return "an array";
        }
        if (value instanceof String) {
            return "a string";
        }
        if (value instanceof Boolean) {
            return "a boolean";
        }
        if (value instanceof Number || value instanceof BigDecimal) {
            return "a number";
        }
        return "a " + value.getClass().getSimpleName();
    }

    private static String describe(JsonProcessingException e) {
        String message = e.getOriginalMessage();
        int newline = message.indexOf('\n');
        if (newline >= 0) {
            message = message.substring(0, newline);
        }
        JsonLocation at = e.getLocation();
        if (at != null && at.getLineNr() > 0) {
            message += " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
        }
        return message;
    }

    private static boolean isBlank(byte[] body) {
        for (byte b : body) {
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return false;
            }
        }
        return true;
    }
}
