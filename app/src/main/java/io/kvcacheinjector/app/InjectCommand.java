package io.kvcacheinjector.app;

/** The {@code inject} command (work in progress: replaced by its implementation). */
final class InjectCommand {
    private InjectCommand() {
    }

    static int run(String[] args) {
        System.err.println("inject: not implemented yet");
        return 1;
    }
}
