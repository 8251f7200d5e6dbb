package io.kvcacheinjector.app.properties;

import io.kvcacheinjector.adapters.http.review.AdmissionResponseWriter;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** What the properties read off a {@link Decision}: its patch, a label for the statistics, and its bytes on the wire. */
final class Outcomes {
    static final String PATCHED = "admitted with a patch";
    static final String UNCHANGED = "admitted unchanged";
    static final String REFUSED = "refused";
    static final String SKIPPED = "skipped";

    private Outcomes() {
    }

    /** The patch of an admission or a skip; empty for a refusal. */
    static List<PatchOp> patch(Decision decision) {
        return switch (decision) {
            case Decision.Admit a -> a.patch();
            case Decision.Skip s -> s.patch();
            case Decision.Refuse r -> List.of();
        };
    }

    static String kind(Decision decision) {
        return switch (decision) {
            case Decision.Admit a -> a.patch().isEmpty() ? UNCHANGED : PATCHED;
            case Decision.Skip s -> SKIPPED;
            case Decision.Refuse r -> REFUSED;
        };
    }

    /** The reason code of a refusal or skip, or the kind of an admission: the statistics' finer label. */
    static String detail(Decision decision) {
        return switch (decision) {
            case Decision.Admit a -> kind(decision);
            case Decision.Skip s -> "skip " + s.code().id();
            case Decision.Refuse r -> "refuse " + r.reason();
        };
    }

    /** The AdmissionReview response the HTTP adapter writes for this decision, as text. */
    static String wire(Decision decision) {
        return new String(AdmissionResponseWriter.decision("6a1c9d2e-uid", decision), StandardCharsets.UTF_8);
    }

    /** Whether {@code text} breaks a line (LF, CR, NEL, U+2028, U+2029). */
    static boolean hasLineBreak(String text) {
        return text.chars().anyMatch(c -> c == '\n' || c == '\r' || c == 0x85 || c == 0x2028 || c == 0x2029);
    }
}
