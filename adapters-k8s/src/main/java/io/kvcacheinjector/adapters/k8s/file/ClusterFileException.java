package io.kvcacheinjector.adapters.k8s.file;

import java.nio.file.Path;

/**
 * A cluster directory that cannot be loaded: a file that is not valid YAML or JSON, a document that is not a
 * Kubernetes object, a known kind under the wrong API group, an object without a name, or the same object twice.
 * The message names the file (and the document within it) and what to change.
 */
public final class ClusterFileException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Path file;

    public ClusterFileException(Path file, String message) {
        super(message);
        this.file = file;
    }

    public ClusterFileException(Path file, String message, Throwable cause) {
        super(message, cause);
        this.file = file;
    }

    /** The file (or directory) at fault. */
    public Path file() {
        return file;
    }
}
