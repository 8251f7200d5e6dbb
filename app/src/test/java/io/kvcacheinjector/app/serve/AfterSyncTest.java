package io.kvcacheinjector.app.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code serve}'s one thread that waits for the cluster view: the heap collection runs only once the view has synced,
 * the controller's start also after its bound when the view never syncs, each once and in order, and nothing runs
 * once {@code serve} has stopped.
 */
class AfterSyncTest {
    private static final Duration LONG = Duration.ofSeconds(30);

    @Test
    void stepsRunOnceTheViewHasSyncedOnceEachInOrder() throws Exception {
        AtomicBoolean synced = new AtomicBoolean();
        List<String> ran = new CopyOnWriteArrayList<>();
        AfterSync watch = AfterSync.start(synced::get, List.of(
                AfterSync.Step.onceSynced("collect", () -> ran.add("collect")),
                AfterSync.Step.onceSyncedOrAfter("controller", LONG, () -> ran.add("controller"))), (s, e) -> { });
        Thread.sleep(10 * AfterSync.POLL.toMillis());
        assertThat(ran).as("ran before the view synced").isEmpty();
        synced.set(true);
        assertThat(watch.ended(Duration.ofSeconds(10))).as("the thread ends once every step ran").isTrue();
        assertThat(ran).containsExactly("collect", "controller");
    }

    @Test
    void aBoundedStepRunsAfterItsBoundWhenTheViewNeverSyncsAndTheOtherWaits() throws Exception {
        List<String> ran = new CopyOnWriteArrayList<>();
        try (AfterSync watch = AfterSync.start(() -> false, List.of(
                AfterSync.Step.onceSynced("collect", () -> ran.add("collect")),
                AfterSync.Step.onceSyncedOrAfter("controller", Duration.ofMillis(150), () -> ran.add("controller"))),
                (s, e) -> { })) {
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (ran.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            Thread.sleep(5 * AfterSync.POLL.toMillis());
            assertThat(ran).containsExactly("controller");
            assertThat(watch.ended(Duration.ZERO)).as("still waiting for the collection's sync").isFalse();
        }
    }

    @Test
    void closedBeforeTheViewSyncedNothingRunsAndTheThreadEnds() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        AtomicBoolean synced = new AtomicBoolean();
        AfterSync watch = AfterSync.start(synced::get, List.of(
                AfterSync.Step.onceSynced("collect", runs::incrementAndGet),
                AfterSync.Step.onceSyncedOrAfter("controller", LONG, runs::incrementAndGet)), (s, e) -> { });
        watch.close();
        synced.set(true);
        assertThat(watch.ended(Duration.ofSeconds(10))).isTrue();
        assertThat(runs).hasValue(0);
    }

    @Test
    void aStepThatThrowsIsReportedByNameAndTheNextStillRuns() throws Exception {
        List<String> failures = new CopyOnWriteArrayList<>();
        AtomicBoolean controllerRan = new AtomicBoolean();
        AfterSync watch = AfterSync.start(() -> true, List.of(
                AfterSync.Step.onceSynced("heap-after-sync", () -> {
                    throw new IllegalStateException("no memory pool named Tenured Gen");
                }),
                AfterSync.Step.onceSyncedOrAfter("controller", LONG, () -> controllerRan.set(true))),
                (step, e) -> failures.add(step + ": " + e.getMessage()));
        assertThat(watch.ended(Duration.ofSeconds(10))).isTrue();
        assertThat(failures).containsExactly("heap-after-sync: no memory pool named Tenured Gen");
        assertThat(controllerRan).isTrue();
    }
}
