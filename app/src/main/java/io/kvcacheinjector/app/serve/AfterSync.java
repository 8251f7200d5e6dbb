package io.kvcacheinjector.app.serve;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

/**
 * What {@code serve} does once its cluster view has synced (every informer has listed), on one thread that watches
 * the view: the one full collection that gives back the heap the first lists needed ({@link HeapAfterSync}), then the
 * start of the CacheBlendEngine controller ({@link DeferredStart}), which also runs when the view has not synced
 * within its bound (a missing kvcache CRD must not keep the controller from running). Each step runs once, in the
 * order given, on the thread {@code after-sync}; the thread ends when every step has run or when {@code serve}
 * closes it, and a step not yet run then never runs (docs/explanation/performance-log.md, "Start-up against an API
 * server").
 */
final class AfterSync implements AutoCloseable {
    /** How often the view is asked whether it has synced. */
    static final Duration POLL = Duration.ofMillis(25);

    /**
     * One thing to do.
     *
     * @param name   for the failure report
     * @param atMost run it after this long even when the view has not synced; empty: only once it has
     * @param action what to do
     */
    record Step(String name, Optional<Duration> atMost, Runnable action) {
        Step {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(atMost, "atMost");
            Objects.requireNonNull(action, "action");
        }

        /** A step that runs once the view has synced, and never before. */
        static Step onceSynced(String name, Runnable action) {
            return new Step(name, Optional.empty(), action);
        }

        /** A step that runs once the view has synced, or after {@code atMost} without that. */
        static Step onceSyncedOrAfter(String name, Duration atMost, Runnable action) {
            return new Step(name, Optional.of(atMost), action);
        }
    }

    private final Thread thread;
    private volatile boolean closed;

    private AfterSync(BooleanSupplier synced, List<Step> steps, BiConsumer<String, RuntimeException> failed) {
        List<Step> pending = new ArrayList<>(steps);
        this.thread = Thread.ofPlatform().name("after-sync").daemon().unstarted(() -> run(synced, pending, failed));
    }

    /**
     * Starts watching {@code synced}. A step that throws is reported to {@code failed} with its name; the steps
     * after it still run.
     */
    static AfterSync start(BooleanSupplier synced, List<Step> steps, BiConsumer<String, RuntimeException> failed) {
        AfterSync watch = new AfterSync(synced, steps, failed);
        watch.thread.start();
        return watch;
    }

    private void run(BooleanSupplier synced, List<Step> pending, BiConsumer<String, RuntimeException> failed) {
        long started = System.nanoTime();
        while (!closed && !pending.isEmpty()) {
            boolean isSynced = synced.getAsBoolean();
            Duration waited = Duration.ofNanos(System.nanoTime() - started);
            for (var it = pending.iterator(); it.hasNext() && !closed; ) {
                Step step = it.next();
                if (isSynced || step.atMost().filter(bound -> waited.compareTo(bound) >= 0).isPresent()) {
                    it.remove();
                    try {
                        step.action().run();
                    } catch (RuntimeException e) {
                        failed.accept(step.name(), e);
                    }
                }
            }
            if (!pending.isEmpty()) {
                try {
                    Thread.sleep(POLL.toMillis());
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** Whether every step has run or the watch was closed, and its thread has ended (for tests). */
    boolean ended(Duration wait) throws InterruptedException {
        return thread.join(wait);
    }

    /** Steps not yet run never run; a step running now finishes (its own close handles that). */
    @Override
    public void close() {
        closed = true;
    }
}
