package io.kvcacheinjector.app.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Wall-clock measurements the suite prints: provisioning, start-up phases, each case, shutdown. */
final class Timings {
    private final List<Entry> entries = new ArrayList<>();

    /** One measured step. */
    record Entry(String what, Duration took) {
    }

    synchronized void add(String what, Duration took) {
        entries.add(new Entry(what, took));
        System.out.println("e2e: time " + format(took) + "  " + what);
    }

    synchronized List<Entry> entries() {
        return List.copyOf(entries);
    }

    synchronized String table() {
        StringBuilder out = new StringBuilder();
        for (Entry e : entries) {
            out.append(String.format(Locale.ROOT, "e2e:   %10s  %s%n", format(e.took()), e.what()));
        }
        return out.toString();
    }

    static String format(Duration d) {
        return String.format(Locale.ROOT, "%.3f s", d.toNanos() / 1e9);
    }

    /** Successive marks from one start, each timed since the previous mark. */
    static final class Phases {
        private final long start = System.nanoTime();
        private long last = start;
        private final List<Entry> marks = new ArrayList<>();

        void mark(String what) {
            long now = System.nanoTime();
            marks.add(new Entry(what, Duration.ofNanos(now - last)));
            last = now;
        }

        List<Entry> marks() {
            return List.copyOf(marks);
        }

        Duration total() {
            return Duration.ofNanos(last - start);
        }
    }
}
