package io.kvcacheinjector.app.check;

/** How bad a finding is. Any {@link #ERROR} makes {@code check} exit 1. */
public enum Severity {
    /** Something an opted-in Pod will visibly lack: no injection, a refused or failing Pod. */
    ERROR,
    /** Likely wrong, or wrong under some conditions; worth a look. */
    WARNING,
    /** A fact about the install that changes what {@code check} could verify. */
    INFO;

    /** Lowercase, as printed and in JSON. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
