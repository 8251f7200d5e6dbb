package io.kvcacheinjector.app;

/** The {@code bench} command (work in progress: replaced by its implementation). */
final class BenchCommand {
    private BenchCommand() {
    }

    static int run(String[] args) {
        System.err.println("bench: not implemented yet");
        return 1;
    }
}
