package io.kvcacheinjector.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code serve} starts the CacheBlendEngine controller once the cluster view has synced, so that the controller's
 * start takes no CPU from what {@code /readyz} waits for; it still starts when the view never syncs, a failed start
 * is reported once (serve then exits 1), and a serve stopped before the start never starts it.
 */
class DeferredStartTest {
    private static final Duration LONG = Duration.ofSeconds(30);

    @Test
    void startsOnlyOnceTheViewHasSynced() throws Exception {
        AtomicBoolean synced = new AtomicBoolean();
        AtomicInteger starts = new AtomicInteger();
        try (DeferredStart d = DeferredStart.begin("test-start", synced::get, LONG, () -> {
            starts.incrementAndGet();
            return () -> { };
        }, e -> { })) {
            Thread.sleep(300);
            assertThat(starts).as("started before the view synced").hasValue(0);
            synced.set(true);
            awaitTrue(d::started);
            assertThat(starts).hasValue(1);
        }
    }

    @Test
    void startsAnywayWhenTheViewDoesNotSyncWithinTheWait() throws Exception {
        try (DeferredStart d = DeferredStart.begin("test-start", () -> false, Duration.ofMillis(200), () -> () -> { },
                e -> { })) {
            awaitTrue(d::started);
        }
    }

    @Test
    void aStartThatFailsIsReportedOnceAndNothingRuns() throws Exception {
        List<RuntimeException> failures = new CopyOnWriteArrayList<>();
        try (DeferredStart d = DeferredStart.begin("test-start", () -> true, LONG, () -> {
            throw new IllegalStateException("the CacheBlendEngine controller cannot start (Forbidden)");
        }, failures::add)) {
            awaitTrue(() -> !failures.isEmpty());
            Thread.sleep(100);
            assertThat(failures).singleElement().extracting(Throwable::getMessage).asString()
                    .contains("cannot start (Forbidden)");
            assertThat(d.started()).isFalse();
        }
    }

    @Test
    void closedBeforeTheViewSyncedItNeverStarts() throws Exception {
        AtomicInteger starts = new AtomicInteger();
        DeferredStart d = DeferredStart.begin("test-start", () -> false, LONG, () -> {
            starts.incrementAndGet();
            return () -> { };
        }, e -> { });
        d.close();
        Thread.sleep(100);
        assertThat(starts).hasValue(0);
    }

    @Test
    void closedWhileStartingWhatStartedIsStopped() throws Exception {
        AtomicBoolean stopped = new AtomicBoolean();
        AtomicBoolean inStart = new AtomicBoolean();
        DeferredStart d = DeferredStart.begin("test-start", () -> true, LONG, () -> {
            inStart.set(true);
            sleep(300);
            return () -> stopped.set(true);
        }, e -> { });
        awaitTrue(inStart::get);
        d.close(); // waits for the start under way
        assertThat(stopped).isTrue();
        assertThat(d.started()).isFalse();
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 5 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
