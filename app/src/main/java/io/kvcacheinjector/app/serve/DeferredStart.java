package io.kvcacheinjector.app.serve;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Something {@code serve} starts later, from {@link AfterSync} — the CacheBlendEngine controller once the cluster
 * view has synced, or after {@link #SYNC_WAIT} when it never does — so that its start takes no CPU from what
 * {@code /readyz} waits for and still happens where the view cannot sync (a missing kvcache CRD). A start that fails
 * goes to {@code onFailure} (serve: one line, exit status 1). Closing it before the start keeps it from starting;
 * closing it during the start stops what was started as soon as the start returns.
 */
final class DeferredStart implements AutoCloseable {
    /** How long the controller waits for the cluster view to sync before it starts anyway. */
    static final Duration SYNC_WAIT = Duration.ofSeconds(15);

    private final Supplier<? extends AutoCloseable> start;
    private final Consumer<RuntimeException> onFailure;
    private final Object lock = new Object();
    private AutoCloseable started;
    private boolean starting;
    private boolean closed;

    /** Nothing starts until {@link #start()} is called. */
    DeferredStart(Supplier<? extends AutoCloseable> start, Consumer<RuntimeException> onFailure) {
        this.start = start;
        this.onFailure = onFailure;
    }

    /** Starts it now, on the calling thread, unless it was closed; once. */
    void start() {
        synchronized (lock) {
            if (closed || starting || started != null) {
                return;
            }
            starting = true;
        }
        AutoCloseable s;
        try {
            s = start.get();
        } catch (RuntimeException e) {
            boolean report;
            synchronized (lock) {
                starting = false;
                report = !closed;
                lock.notifyAll();
            }
            if (report) {
                onFailure.accept(e);
            }
            return;
        }
        synchronized (lock) {
            if (!closed) {
                started = s;
                starting = false;
                lock.notifyAll();
                return;
            }
        }
        try {
            stop(s); // closed while it was starting: stopped before close() returns
        } finally {
            synchronized (lock) {
                starting = false;
                lock.notifyAll();
            }
        }
    }

    /** Whether the start has happened and not failed (for tests). */
    boolean started() {
        synchronized (lock) {
            return started != null;
        }
    }

    /** Stops what was started, or keeps it from starting; waits up to 10 s for a start under way to return. */
    @Override
    public void close() {
        AutoCloseable s;
        synchronized (lock) {
            closed = true;
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (starting) { // the start under way returns, sees the close and stops what it started
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    lock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            s = started;
            started = null;
        }
        if (s != null) {
            stop(s);
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
