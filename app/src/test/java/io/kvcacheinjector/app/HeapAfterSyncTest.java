package io.kvcacheinjector.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.kvcacheinjector.domain.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HeapAfterSyncTest {

    @Test
    void oneCollectionOnceTheViewHasSyncedAndNotBefore() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        AtomicInteger collections = new AtomicInteger();
        AtomicInteger pollsAtCollection = new AtomicInteger(-1);
        AtomicInteger afterwards = new AtomicInteger(-1);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread t = HeapAfterSync.start(
                () -> polls.incrementAndGet() < 4 ? new SyncState.NotSynced("the Binding informer has not listed")
                        : SyncState.synced(),
                () -> false,
                () -> {
                    collections.incrementAndGet();
                    pollsAtCollection.set(polls.get());
                },
                () -> afterwards.set(collections.get()),
                JsonLog.to(new PrintStream(out, true, StandardCharsets.UTF_8)));
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(collections).hasValue(1);
        assertThat(pollsAtCollection).as("collected only after the view reported synced").hasValue(4);
        assertThat(afterwards).as("the bound is armed after the collection").hasValue(1);
        String line = out.toString(StandardCharsets.UTF_8).strip();
        @SuppressWarnings("unchecked")
        Map<String, Object> event = (Map<String, Object>) Json.parse(line).orElseThrow();
        assertThat(event).containsEntry("event", "heap-after-sync").containsKeys("committedMiBBefore", "committedMiB",
                "usedMiB", "ms");
    }

    @Test
    void noCollectionWhenServeStopsBeforeTheViewSyncs() throws Exception {
        AtomicBoolean stopped = new AtomicBoolean();
        AtomicInteger collections = new AtomicInteger();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread t = HeapAfterSync.start(() -> new SyncState.NotSynced("no API server"), stopped::get,
                collections::incrementAndGet, collections::incrementAndGet, JsonLog.to(new PrintStream(out, true, StandardCharsets.UTF_8)));
        Thread.sleep(3 * HeapAfterSync.POLL.toMillis());
        stopped.set(true);
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(collections).hasValue(0);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }
}
