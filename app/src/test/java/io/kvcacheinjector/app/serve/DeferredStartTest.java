package io.kvcacheinjector.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code serve} starts the CacheBlendEngine controller from its {@link AfterSync} thread: a failed start is reported
 * once (serve then exits 1), a start is never repeated, a serve stopped before the start never starts it, and one
 * stopped during the start stops what started before {@code close()} returns. When the start happens is
 * {@link AfterSyncTest}'s.
 */
class DeferredStartTest {
    @Test
    void startsOnceAndCloseStopsWhatStarted() {
        AtomicInteger starts = new AtomicInteger();
        AtomicBoolean stopped = new AtomicBoolean();
        DeferredStart d = new DeferredStart(() -> {
            starts.incrementAndGet();
            return () -> stopped.set(true);
        }, e -> { });
        d.start();
        d.start();
        assertThat(starts).hasValue(1);
        assertThat(d.started()).isTrue();
        d.close();
        assertThat(stopped).isTrue();
        assertThat(d.started()).isFalse();
    }

    @Test
    void aStartThatFailsIsReportedOnceAndNothingRuns() {
        List<RuntimeException> failures = new CopyOnWriteArrayList<>();
        DeferredStart d = new DeferredStart(() -> {
            throw new IllegalStateException("the CacheBlendEngine controller cannot start (Forbidden)");
        }, failures::add);
        d.start();
        assertThat(failures).singleElement().extracting(Throwable::getMessage).asString()
                .contains("cannot start (Forbidden)");
        assertThat(d.started()).isFalse();
        d.close();
    }

    @Test
    void closedBeforeTheStartItNeverStarts() {
        AtomicInteger starts = new AtomicInteger();
        DeferredStart d = new DeferredStart(() -> {
            starts.incrementAndGet();
            return () -> { };
        }, e -> { });
        d.close();
        d.start();
        assertThat(starts).hasValue(0);
    }

    @Test
    void closedWhileStartingWhatStartedIsStoppedBeforeCloseReturns() throws Exception {
        AtomicBoolean stopped = new AtomicBoolean();
        AtomicBoolean inStart = new AtomicBoolean();
        List<RuntimeException> failures = new CopyOnWriteArrayList<>();
        DeferredStart d = new DeferredStart(() -> {
            inStart.set(true);
            sleep(300);
            return () -> stopped.set(true);
        }, failures::add);
        Thread starter = Thread.ofPlatform().start(d::start);
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!inStart.get() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        d.close(); // waits for the start under way
        assertThat(stopped).isTrue();
        assertThat(d.started()).isFalse();
        starter.join(5_000);
        assertThat(failures).isEmpty();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
