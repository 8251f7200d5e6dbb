package io.kvcacheinjector.bench;

/** Which server a round drives. */
public enum Side {
    /** The real webhook over the example cluster. */
    REAL("real"),
    /** The same server answering {@code allowed: true} without looking at the Pod. */
    BASELINE("baseline");

    private final String label;

    Side(String label) {
        this.label = label;
    }

    /** The name in the report. */
    public String label() {
        return label;
    }
}
