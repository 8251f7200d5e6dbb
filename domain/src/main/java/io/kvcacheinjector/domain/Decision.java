package io.kvcacheinjector.domain;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/** The answer of one admission decision. Consume it with an exhaustive switch. */
public sealed interface Decision permits Decision.Admit, Decision.Refuse, Decision.Skip {

    /** Admitted; {@code patch} is empty when nothing changes. */
    record Admit(List<PatchOp> patch, List<Warning> warnings) implements Decision {
        public Admit {
            patch = List.copyOf(patch);
            warnings = List.copyOf(warnings);
        }

        /** Admitted unchanged, with no warning. */
        public static Admit unchanged() {
            return new Admit(List.of(), List.of());
        }
    }

    /**
     * Refused. {@code codes} holds one code, except for the freeze, which reports every failure; {@code message}
     * is one paragraph that starts with the first code.
     */
    record Refuse(List<ReasonCode> codes, String message) implements Decision {
        public Refuse {
            codes = List.copyOf(codes);
            if (codes.isEmpty()) {
                throw new IllegalArgumentException("a refusal needs a code");
            }
            Objects.requireNonNull(message, "message");
        }

        public Refuse(ReasonCode code, String message) {
            this(List.of(code), message);
        }

        /** The codes joined with commas, as the audit annotation, log and metric carry them. */
        public String reason() {
            return codes.stream().map(ReasonCode::id).collect(Collectors.joining(","));
        }
    }

    /**
     * CacheBlend skip: admitted with only the skip-reason annotation in {@code patch} and a warning
     * {@code message} (starting with the code).
     */
    record Skip(ReasonCode code, String message, List<PatchOp> patch) implements Decision {
        public Skip {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(message, "message");
            patch = List.copyOf(patch);
        }
    }
}
