package io.kvcacheinjector.app.cli;

import picocli.CommandLine.Option;

/**
 * {@code --kubeconfig FILE} and {@code --context NAME}: which live cluster {@code check}, and {@code inject} and
 * {@code review} without {@code --cluster}, read with the user's own credentials ({@code $KUBECONFIG},
 * {@code ~/.kube/config} or the in-cluster service account without them), as kubectl reads them, so that the kubectl
 * plugin passes kubectl's own flags through. The reading is {@link Kubeconfig}'s: this class holds no fabric8 type,
 * so that picocli's reflection over the options does not load fabric8's client for a file-backed {@code inject}.
 */
public final class KubeconfigOptions {
    @Option(names = "--kubeconfig", paramLabel = "FILE", description = "The kubeconfig to read the cluster with"
            + " (default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account).")
    public String kubeconfig;

    @Option(names = "--context", paramLabel = "NAME", description = "The kubeconfig context (default: its current"
            + " context).")
    public String context;

    /** Why the live cluster cannot be read: the one line after the command's name; exit 2. */
    public static final class Unreadable extends Exception {
        public Unreadable(String message) {
            super(message);
        }
    }

}
