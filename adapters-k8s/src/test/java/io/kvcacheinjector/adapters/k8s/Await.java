package io.kvcacheinjector.adapters.k8s;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for an asynchronous outcome (a reload, a watch event). A generous deadline, not a speed assertion. */
public final class Await {
    private Await() {
    }

    public static void until(String what, BooleanSupplier condition) {
        until(what, Duration.ofSeconds(20), condition);
    }

    public static void until(String what, Duration deadline, BooleanSupplier condition) {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("gave up waiting for: " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what);
            }
        }
    }
}
