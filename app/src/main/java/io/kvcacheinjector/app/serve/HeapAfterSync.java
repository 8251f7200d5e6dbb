package io.kvcacheinjector.app.serve;

import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;

/**
 * One full collection once the cluster view has synced, so that the heap the first lists needed is given back.
 *
 * <p>The informers' first lists are the largest thing {@code serve} ever decodes: with 10 000 Bindings and their
 * pools the Serial collector's old generation grows to the heap limit while the list responses are turned into
 * objects and trimmed, and it is only shrunk again (to {@code -XX:MaxHeapFreeRatio} above the live data) by a full
 * collection, which nothing else triggers in a webhook that keeps its data small. So, once, when every informer has
 * listed ({@link AfterSync}), this asks for one ({@link System#gc()}) and logs {@code heap-after-sync} with the heap
 * committed before and after. It costs one pause of a few tens of milliseconds at start
 * (docs/explanation/performance-log.md, "Footprint and start-up (issue 17)").
 */
final class HeapAfterSync {
    private HeapAfterSync() {
    }

    /**
     * The step: runs {@code collect} once, logs what it did, then runs {@code then} (which arms the
     * {@link OldGenerationBound}).
     */
    static Runnable collection(Runnable collect, Runnable then, JsonLog log) {
        return () -> {
            MemoryUsage before = heap();
            long t0 = System.nanoTime();
            collect.run();
            long millis = (System.nanoTime() - t0) / 1_000_000;
            MemoryUsage after = heap();
            log.info("heap-after-sync", "committedMiBBefore", mib(before.getCommitted()),
                    "committedMiB", mib(after.getCommitted()), "usedMiB", mib(after.getUsed()), "ms", millis);
            then.run();
        };
    }

    private static MemoryUsage heap() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    }

    private static long mib(long bytes) {
        return bytes / (1024 * 1024);
    }
}
