package io.kvcacheinjector.app.serve;

import io.kvcacheinjector.adapters.http.server.WebhookServer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Turns SIGTERM and SIGINT into a request to stop gracefully. The JVM's own handling of these signals would run
 * shutdown hooks and exit with 143 or 130; taking the signals over lets {@code serve} finish the reviews in flight,
 * close the cluster view and exit 0. A second signal (Ctrl-C twice) cuts the shutdown delay short.
 */
final class ServeSignals {
    private final CountDownLatch stop = new CountDownLatch(1);
    private final CountDownLatch again = new CountDownLatch(1);
    private final AtomicReference<String> received = new AtomicReference<>("");
    private final AtomicReference<String> receivedAgain = new AtomicReference<>("");

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

    /** Asks the waiting thread to stop, as a signal would; a second request cuts the shutdown delay short. */
    void requestStop(String why) {
        if (!received.compareAndSet("", why)) {
            receivedAgain.compareAndSet("", why);
            again.countDown();
        }
        stop.countDown();
    }

    /** Blocks until a stop is requested; returns what requested it, for example {@code SIGTERM}. */
    String await() throws InterruptedException {
        stop.await();
        return received.get();
    }

    /**
     * Waits up to {@code delay} for a stop request after the first (the shutdown delay of
     * {@link WebhookServer#shutdown(WebhookServer.DelayWait)}).
     *
     * @return what requested it, for example {@code SIGINT}; empty when the delay elapsed first
     */
    Optional<String> awaitAnother(Duration delay) throws InterruptedException {
        return again.await(delay.toNanos(), TimeUnit.NANOSECONDS) ? Optional.of(receivedAgain.get())
                : Optional.empty();
    }
}
