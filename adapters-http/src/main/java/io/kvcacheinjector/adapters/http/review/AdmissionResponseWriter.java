package io.kvcacheinjector.adapters.http.review;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Writes the {@code admission.k8s.io/v1} AdmissionReview response for a {@link Decision}, and the JSON error body
 * of a request that is not a review. The bytes are stable: the same input always gives the same bytes (fields in a
 * fixed order, no timestamps).
 *
 * <ul>
 *   <li>{@code Admit}: {@code allowed: true}; {@code patchType: JSONPatch} and the base64 RFC 6902 patch only when
 *       the patch is non-empty; {@code warnings} (the messages) and {@code auditAnnotations.warnings} (the codes,
 *       comma-joined) only when there are warnings.</li>
 *   <li>{@code Refuse}: {@code allowed: false}, {@code status} {@code {code: 403, reason: Forbidden, message}},
 *       {@code auditAnnotations.refusal} = the comma-joined codes.</li>
 *   <li>{@code Skip}: {@code allowed: true}, the patch (the skip-reason annotation), {@code warnings} = the
 *       message, {@code auditAnnotations.skip-reason} = the code.</li>
 * </ul>
 */
public final class AdmissionResponseWriter {
    /** Audit annotation key of a refusal. */
    public static final String AUDIT_REFUSAL = "refusal";
    /** Audit annotation key of a CacheBlend skip. */
    public static final String AUDIT_SKIP_REASON = "skip-reason";
    /** Audit annotation key of the warning codes. */
    public static final String AUDIT_WARNINGS = "warnings";

    private AdmissionResponseWriter() {
    }

    /** The response for {@code decision} on the request {@code uid}. */
    public static byte[] decision(String uid, Decision decision) {
        Map<String, Object> response = switch (decision) {
            case Decision.Admit admit -> admitted(uid, admit.patch(),
                    admit.warnings().stream().map(Warning::message).toList(),
                    warningCodes(admit.warnings()));
            case Decision.Refuse refuse -> refused(uid, refuse.reason(), refuse.message());
            case Decision.Skip skip -> {
                Map<String, Object> r = admitted(uid, skip.patch(), List.of(skip.message()), "");
                r.put("auditAnnotations", Map.of(AUDIT_SKIP_REASON, skip.code().id()));
                yield r;
            }
        };
        return envelope(response);
    }

    /**
     * Admitted unchanged, for reviews this webhook does not judge (another kind or operation) and for a failure
     * of the webhook itself on a fail-open webhook. {@code warnings} may be empty.
     */
    public static byte[] admittedUnchanged(String uid, List<String> warnings) {
        return envelope(admitted(uid, List.of(), warnings, ""));
    }

    /**
     * Denied because the webhook itself failed while reviewing (fail-closed webhooks only): {@code status.code}
     * 500, {@code reason} {@code InternalError}. Not a catalogue refusal, so no audit annotation.
     */
    public static byte[] internalFailure(String uid, String message) {
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("uid", uid);
        response.put("allowed", false);
        response.put("status", status(500, "InternalError", message));
        return envelope(response);
    }

    /** The JSON body of an HTTP error (400, 413, ...): {@code {"error": <code>, "message": <message>}}. */
    public static byte[] error(String error, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", error);
        body.put("message", message);
        return Json.write(body).getBytes(StandardCharsets.UTF_8);
    }

    /** The RFC 6902 patch as JSON text: an array of {@code {"op","path","value"}} ({@code value} omitted for remove). */
    public static String patchJson(List<PatchOp> patch) {
        // written straight into one builder sized for a typical patch (the same bytes as a list of maps would give)
        StringBuilder out = new StringBuilder(256 + 160 * patch.size());
        out.append('[');
        for (int i = 0; i < patch.size(); i++) {
            PatchOp op = patch.get(i);
            if (i > 0) {
                out.append(',');
            }
            out.append("{\"op\":");
            Json.quote(op.op().json(), out);
            out.append(",\"path\":");
            Json.quote(op.path(), out);
            if (op.op() != PatchOp.Op.REMOVE) {
                out.append(",\"value\":");
                Json.write(op.value(), out);
            }
            out.append('}');
        }
        return out.append(']').toString();
    }

    private static Map<String, Object> admitted(String uid, List<PatchOp> patch, List<String> warnings,
                                                String warningCodes) {
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("uid", uid);
        response.put("allowed", true);
        if (!patch.isEmpty()) {
            response.put("patchType", "JSONPatch");
            response.put("patch", Base64.getEncoder().encodeToString(
                    patchJson(patch).getBytes(StandardCharsets.UTF_8)));
        }
        if (!warnings.isEmpty()) {
            response.put("warnings", List.copyOf(warnings));
        }
        if (!warningCodes.isEmpty()) {
            response.put("auditAnnotations", Map.of(AUDIT_WARNINGS, warningCodes));
        }
        return response;
    }

    private static Map<String, Object> refused(String uid, String reason, String message) {
        Map<String, Object> response = new LinkedHashMap<>();
        response.put("uid", uid);
        response.put("allowed", false);
        response.put("status", status(403, "Forbidden", message));
        response.put("auditAnnotations", Map.of(AUDIT_REFUSAL, reason));
        return response;
    }

    private static Map<String, Object> status(int code, String reason, String message) {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("code", code);
        status.put("reason", reason);
        status.put("message", message);
        return status;
    }

    /** The distinct warning codes in first-seen order, comma-joined; empty when there is none. */
    public static String warningCodes(List<Warning> warnings) {
        return warnings.stream().map(w -> w.code().id()).distinct().collect(Collectors.joining(","));
    }

    private static byte[] envelope(Map<String, Object> response) {
        // what Json.write of {apiVersion, kind, response} gives, written into one builder large enough for the
        // patch; the base64 patch is appended as it is: it holds no character that JSON escapes, and scanning a
        // patch of kilobytes for one took longer than deciding it
        Object patch = response.get("patch");
        StringBuilder out = new StringBuilder(512 + (patch instanceof String p ? p.length() : 0));
        out.append("{\"apiVersion\":");
        Json.quote(AdmissionReviewReader.API_VERSION, out);
        out.append(",\"kind\":");
        Json.quote(AdmissionReviewReader.KIND, out);
        out.append(",\"response\":{");
        boolean first = true;
        for (Map.Entry<String, Object> field : response.entrySet()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            Json.quote(field.getKey(), out);
            out.append(':');
            if (field.getKey().equals("patch") && field.getValue() instanceof String base64) {
                out.append('"').append(base64).append('"');
            } else {
                Json.write(field.getValue(), out);
            }
        }
        return out.append("}}").toString().getBytes(StandardCharsets.UTF_8);
    }
}
