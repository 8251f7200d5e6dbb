package io.kvcacheinjector.app.serve;

/** Signal sources for tests. */
final class ServeSignalsTesting {
    private ServeSignalsTesting() {
    }

    /** Signals that are never raised (for runs that fail before waiting). */
    static ServeSignals never() {
        return ServeSignals.unsignalled();
    }
}
