package io.kvcacheinjector.app.serve;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryNotificationInfo;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;

/**
 * Keeps the Serial collector's old generation near the live data: when it has grown {@code headroom} bytes past what
 * was live after the last full collection, asks for a full collection ({@link System#gc()}), which with the chart's
 * {@code -XX:MaxHeapFreeRatio} and {@code -XX:-ShrinkHeapInSteps} also gives the memory back.
 *
 * <p>Why: Serial grows its old generation, up to the heap limit, whenever a young collection promotes more than fits,
 * and collects it only when it cannot grow any more. Under load a few hundred KB of reviews still in flight are
 * promoted at many young collections, so without a bound the committed heap climbs to its limit (130 MiB) and back
 * in a sawtooth, though the live data is 10–50 MiB; the heap limit itself has to stay that high for one hostile
 * review (docs/explanation/performance-log.md, "Footprint and start-up (issue 17)"). The check costs nothing per
 * review: it is the JVM's usage threshold on the old generation's pool, tested by the JVM after each collection. Under G1 (or any
 * collector without a pool named {@value #SERIAL_OLD_POOL}) nothing is armed.
 */
final class OldGenerationBound {
    /** The Serial collector's old generation. */
    static final String SERIAL_OLD_POOL = "Tenured Gen";
    /** How far past the live data the old generation may grow before a full collection: 24 MiB. */
    static final long DEFAULT_HEADROOM_BYTES = 24L * 1024 * 1024;

    private final MemoryPoolMXBean pool;
    private final NotificationEmitter emitter;
    private final long headroom;
    private final Runnable collect;
    private final ExecutorService worker;
    private final AtomicBoolean pending = new AtomicBoolean();
    private final AtomicLong collections = new AtomicLong();
    private final NotificationListener listener = this::onNotification;

    private OldGenerationBound(MemoryPoolMXBean pool, NotificationEmitter emitter, long headroom, Runnable collect) {
        this.pool = pool;
        this.emitter = emitter;
        this.headroom = headroom;
        this.collect = collect;
        this.worker = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon()
                .name("old-generation-bound").unstarted(r));
    }

    /** Arms the bound in this JVM with {@link System#gc()}; empty when the collector is not Serial. */
    static Optional<OldGenerationBound> arm(long headroom) {
        Optional<MemoryPoolMXBean> tenured = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP && SERIAL_OLD_POOL.equals(p.getName()))
                .findFirst();
        return tenured.flatMap(p -> arm(p, (NotificationEmitter) ManagementFactory.getMemoryMXBean(), headroom,
                System::gc));
    }

    /** Arms the bound on {@code pool}, listening on {@code emitter}; empty when the pool has no usage threshold. */
    static Optional<OldGenerationBound> arm(MemoryPoolMXBean pool, NotificationEmitter emitter, long headroom,
                                            Runnable collect) {
        if (headroom <= 0 || !pool.isUsageThresholdSupported()) {
            return Optional.empty();
        }
        OldGenerationBound bound = new OldGenerationBound(pool, emitter, headroom, collect);
        bound.rearm();
        emitter.addNotificationListener(bound.listener, null, null);
        return Optional.of(bound);
    }

    private void onNotification(Notification notification, Object handback) {
        if (!MemoryNotificationInfo.MEMORY_THRESHOLD_EXCEEDED.equals(notification.getType())) {
            return;
        }
        if (notification.getUserData() instanceof javax.management.openmbean.CompositeData data
                && !pool.getName().equals(MemoryNotificationInfo.from(data).getPoolName())) {
            return;
        }
        if (pending.compareAndSet(false, true)) {
            worker.execute(() -> {
                try {
                    collect.run();
                    collections.incrementAndGet();
                } finally {
                    rearm();
                    pending.set(false);
                }
            });
        }
    }

    /** The threshold: what the old generation holds now (right after a full collection: the live data) plus the headroom. */
    private void rearm() {
        long used = pool.getUsage().getUsed();
        long max = pool.getUsage().getMax();
        long threshold = used + headroom;
        pool.setUsageThreshold(max > 0 ? Math.min(threshold, max) : threshold);
    }

    /** The full collections this bound asked for. */
    long collections() {
        return collections.get();
    }

    /** Stops listening. */
    void disarm() {
        try {
            emitter.removeNotificationListener(listener);
        } catch (ListenerNotFoundException e) {
            // not listening
        }
        worker.shutdownNow();
    }
}
