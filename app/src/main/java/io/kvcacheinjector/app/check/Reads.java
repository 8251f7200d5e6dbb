package io.kvcacheinjector.app.check;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.List;
import java.util.Optional;

/**
 * The reads of {@code check}'s scope (one namespace, or all), and one clause for a failed API read: the HTTP status
 * and the server's reason, never a stack trace.
 */
final class Reads {
    private Reads() {
    }

    /** The objects of {@code resources} in {@code namespace}, or in every namespace when it is empty. */
    static List<GenericKubernetesResource> listInScope(MixedOperation<GenericKubernetesResource,
            GenericKubernetesResourceList, Resource<GenericKubernetesResource>> resources, Optional<String> namespace) {
        return (namespace.isPresent() ? resources.inNamespace(namespace.get()).list()
                : resources.inAnyNamespace().list()).getItems();
    }

    /** The scope as a not-checked line names it: "namespace N" or "all namespaces". */
    static String scope(Optional<String> namespace) {
        return namespace.map(n -> "namespace " + n).orElse("all namespaces");
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
