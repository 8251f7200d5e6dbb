package io.kvcacheinjector.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.domain.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The step {@code serve} runs once the cluster view has synced ({@link AfterSync}): one collection, one
 * {@code heap-after-sync} line with the heap before and after, then the old generation's bound is armed.
 */
class HeapAfterSyncTest {

    @Test
    void oneCollectionThenTheLineThenTheBound() throws Exception {
        AtomicInteger collections = new AtomicInteger();
        AtomicInteger afterwards = new AtomicInteger(-1);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        HeapAfterSync.collection(collections::incrementAndGet, () -> afterwards.set(collections.get()),
                JsonLog.to(new PrintStream(out, true, StandardCharsets.UTF_8))).run();
        assertThat(collections).hasValue(1);
        assertThat(afterwards).as("the bound is armed after the collection").hasValue(1);
        String line = out.toString(StandardCharsets.UTF_8).strip();
        @SuppressWarnings("unchecked")
        Map<String, Object> event = (Map<String, Object>) Json.parse(line).orElseThrow();
        assertThat(event).containsEntry("event", "heap-after-sync").containsKeys("committedMiBBefore", "committedMiB",
                "usedMiB", "ms");
    }
}
