package io.kvcacheinjector.app;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Something {@code serve} starts on its own thread once a condition holds — the CacheBlendEngine controller once the
 * cluster view has synced — or after a bounded wait when it never does, so that it takes no CPU from what
 * {@code /readyz} waits for and still runs where the view cannot sync (a missing kvcache CRD). A start that fails
 * goes to {@code onFailure} (serve: one line, exit status 1). Closing it before the start keeps it from starting;
 * closing it during the start stops what was started as soon as the start returns.
 */
final class DeferredStart implements AutoCloseable {
    /** How long the controller waits for the cluster view to sync before it starts anyway. */
    static final Duration SYNC_WAIT = Duration.ofSeconds(15);

    private final Object lock = new Object();
    private AutoCloseable started;
    private volatile boolean closed;
    private Thread starter;

    private DeferredStart() {
    }

    /** Starts {@code start} on the thread {@code name} once {@code ready} holds, or after {@code wait}. */
    static DeferredStart begin(String name, BooleanSupplier ready, Duration wait,
                               Supplier<? extends AutoCloseable> start, Consumer<RuntimeException> onFailure) {
        DeferredStart d = new DeferredStart();
        d.starter = Thread.ofPlatform().name(name).daemon().start(() -> d.run(ready, wait, start, onFailure));
        return d;
    }

    private void run(BooleanSupplier ready, Duration wait, Supplier<? extends AutoCloseable> start,
                     Consumer<RuntimeException> onFailure) {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!closed && !ready.getAsBoolean() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                return;
            }
        }
        if (closed) {
            return;
        }
        AutoCloseable s;
        try {
            s = start.get();
        } catch (RuntimeException e) {
            if (!closed) {
                onFailure.accept(e);
            }
            return;
        }
        synchronized (lock) {
            if (!closed) {
                started = s;
                return;
            }
        }
        stop(s); // closed while it was starting
    }

    /** Whether the start has happened and not failed (for tests). */
    boolean started() {
        synchronized (lock) {
            return started != null;
        }
    }

    /** Stops what was started, or keeps it from starting; waits up to 10 s for a start under way. */
    @Override
    public void close() {
        AutoCloseable s;
        synchronized (lock) {
            closed = true;
            s = started;
        }
        if (s != null) {
            stop(s);
            return;
        }
        try { // a start under way finishes, sees the close and stops what it started
            starter.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void stop(AutoCloseable s) {
        try {
            s.close();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
