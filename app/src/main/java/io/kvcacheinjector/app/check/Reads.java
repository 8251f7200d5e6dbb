package io.kvcacheinjector.app.check;

import io.fabric8.kubernetes.client.KubernetesClientException;

/** One clause for a failed API read: the HTTP status and the server's reason, never a stack trace. */
final class Reads {
    private Reads() {
    }

    static String reason(KubernetesClientException e) {
        if (e.getCode() <= 0) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            if (root != e) {
                return "no answer: " + root.getClass().getSimpleName()
                        + (root.getMessage() == null ? "" : " " + root.getMessage().strip().split("\n", 2)[0]);
            }
        }
        String text = e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage() : e.getMessage();
        Throwable cause = e.getCause();
        if ((text == null || text.isBlank()) && cause != null) {
            text = cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
        }
        text = text == null ? "no reason given" : text.strip();
        int nl = text.indexOf('\n');
        if (nl > 0) {
            text = text.substring(0, nl);
        }
        if (text.length() > 300) {
            text = text.substring(0, 300) + "…";
        }
        return (e.getCode() > 0 ? "HTTP " + e.getCode() + ", " : "") + text;
    }

    static boolean forbidden(KubernetesClientException e) {
        return e.getCode() == 401 || e.getCode() == 403;
    }

    static boolean notFound(KubernetesClientException e) {
        return e.getCode() == 404;
    }
}
