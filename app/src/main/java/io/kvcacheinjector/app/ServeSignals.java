package io.kvcacheinjector.app;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Turns SIGTERM and SIGINT into a request to stop gracefully. The JVM's own handling of these signals would run
 * shutdown hooks and exit with 143 or 130; taking the signals over lets {@code serve} finish the reviews in flight,
 * close the cluster view and exit 0.
 */
final class ServeSignals {
    private final CountDownLatch stop = new CountDownLatch(1);
    private final AtomicReference<String> received = new AtomicReference<>("");

    private ServeSignals() {
    }

    /** Installs the handlers for TERM and INT; a signal the platform does not offer is skipped. */
    @SuppressWarnings("restriction")
    static ServeSignals install() {
        ServeSignals signals = new ServeSignals();
        for (String name : new String[]{"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), s -> signals.requestStop("SIG" + s.getName()));
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // not available on this platform (or reserved by the JVM): the default handling stays
            }
        }
        return signals;
    }

    /** Signals not connected to the process (tests call {@link #requestStop}). */
    static ServeSignals unsignalled() {
        return new ServeSignals();
    }

    /** Asks the waiting thread to stop, as a signal would. */
    void requestStop(String why) {
        received.compareAndSet("", why);
        stop.countDown();
    }

    /** Blocks until a stop is requested; returns what requested it, for example {@code SIGTERM}. */
    String await() throws InterruptedException {
        stop.await();
        return received.get();
    }
}
