package io.kvcacheinjector.app;

/** The {@code serve} command (work in progress: replaced by its implementation). */
final class ServeCommand {
    private ServeCommand() {
    }

    static int run(String[] args) {
        System.err.println("serve: not implemented yet");
        return 1;
    }
}
