package io.kvcacheinjector.adapters.http.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting in a test for what a server does on its own threads. */
public final class Await {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    private Await() {
    }

    /** Returns once {@code condition} holds, checked every 20 ms; fails the test if it does not within 30 s. */
    public static void until(BooleanSupplier condition) throws InterruptedException {
        until("condition", condition);
    }

    /** As {@link #until(BooleanSupplier)}, the failure naming {@code what} was awaited. */
    public static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " not reached in " + LIMIT.toSeconds() + " s");
            }
            Thread.sleep(20);
        }
    }
}
