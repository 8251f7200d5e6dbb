package io.kvcacheinjector.app.engines;

/**
 * Start-up cannot go on because of the engines folder: the message is one line that names the folder or jar and the
 * fix. Every command prints it as it is and exits non-zero.
 */
public final class EngineLoadException extends IllegalStateException {
    EngineLoadException(String message) {
        super(message);
    }

    EngineLoadException(String message, Throwable cause) {
        super(message, cause);
    }
}
