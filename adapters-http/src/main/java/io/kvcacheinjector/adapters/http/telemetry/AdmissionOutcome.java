package io.kvcacheinjector.adapters.http.telemetry;

/** The {@code outcome} label of a review: what the webhook answered. */
public enum AdmissionOutcome {
    /** Allowed, with or without a patch and warnings. */
    ADMITTED("admitted"),
    /** Denied with a catalogue code. */
    REFUSED("refused"),
    /** CacheBlend: admitted with only the skip-reason annotation. */
    SKIPPED("skipped"),
    /** No decision: the review could not be read, was too large, or the webhook itself failed. */
    ERROR("error");

    private final String label;

    AdmissionOutcome(String label) {
        this.label = label;
    }

    /** The label value, for example {@code refused}. */
    public String label() {
        return label;
    }
}
