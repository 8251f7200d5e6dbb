package io.kvcacheinjector.app;

/** The {@code review} command (work in progress: replaced by its implementation). */
final class ReviewCommand {
    private ReviewCommand() {
    }

    static int run(String[] args) {
        System.err.println("review: not implemented yet");
        return 1;
    }
}
