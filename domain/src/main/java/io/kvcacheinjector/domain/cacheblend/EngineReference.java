package io.kvcacheinjector.domain.cacheblend;

import io.kvcacheinjector.domain.text.MessageText;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The engine a Pod selects with {@code lmcache.ai/cacheblend-engine} (docs/reference/cacheblend-injection.md): {@code <name>} or
 * {@code <namespace>/<name>}, trimmed, split at the first {@code /}; no namespace (or a blank one, {@code /name})
 * means the Pod's namespace.
 *
 * @param written        the annotation value exactly as written
 * @param namespace      the namespace the engine and its ConfigMap are read in
 * @param name           the engine's name
 * @param namespaceGiven whether the value named the namespace (otherwise it is the Pod's)
 */
public record EngineReference(String written, String namespace, String name, boolean namespaceGiven) {

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    private static final int LABEL_MAX = 63;
    private static final int SUBDOMAIN_MAX = 253;

    public EngineReference {
        Objects.requireNonNull(written, "written");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(name, "name");
    }

    /** {@code namespace/name}, as messages name the engine. */
    public String qualified() {
        return namespace + "/" + name;
    }

    /** The outcome of reading the annotation. */
    public sealed interface Parsing permits Parsed, Invalid {
    }

    /** The annotation names an engine. */
    public record Parsed(EngineReference reference) implements Parsing {
    }

    /**
     * The annotation is missing, blank or malformed; {@code problem} is a clause that follows the annotation's
     * name in a message, for example {@code is missing} or {@code is "a/b/c", which has more than one "/"}.
     */
    public record Invalid(String problem) implements Parsing {
    }

    /**
     * Reads the annotation value.
     *
     * @param value        the annotation's value, or {@code null} when the Pod does not carry it
     * @param podNamespace the Pod's namespace (the request's, falling back to the object's); may be empty
     */
    public static Parsing parse(String value, String podNamespace) {
        if (value == null) {
            return new Invalid("is missing");
        }
        String trimmed = value.trim();
        if (trimmed.isEmpty()) {
            return new Invalid("is " + MessageText.quote(value) + ", which is blank");
        }
        int slash = trimmed.indexOf('/');
        String namespacePart = slash < 0 ? "" : trimmed.substring(0, slash).trim();
        String namePart = slash < 0 ? trimmed : trimmed.substring(slash + 1).trim();
        String as = "is " + MessageText.quote(value) + ", ";
        if (slash >= 0 && namePart.indexOf('/') >= 0) {
            return new Invalid(as + "which has more than one \"/\"");
        }
        if (namePart.isEmpty()) {
            return new Invalid(as + "which has an empty name");
        }
        if (!isSubdomain(namePart)) {
            return new Invalid(as + "and " + MessageText.quote(namePart)
                    + " is not a valid Kubernetes name (lowercase letters, digits, '-' and '.')");
        }
        boolean namespaceGiven = !namespacePart.isEmpty();
        String namespace = namespaceGiven ? namespacePart : podNamespace == null ? "" : podNamespace;
        if (namespace.isEmpty()) {
            return new Invalid(as + "which names no namespace, and the Pod's namespace is not known");
        }
        if (namespaceGiven && !isLabel(namespacePart)) {
            return new Invalid(as + "and " + MessageText.quote(namespacePart)
                    + " is not a valid namespace name (lowercase letters, digits and '-')");
        }
        return new Parsed(new EngineReference(value, namespace, namePart, namespaceGiven));
    }

    private static boolean isLabel(String s) {
        return s.length() <= LABEL_MAX && DNS_LABEL.matcher(s).matches();
    }

    private static boolean isSubdomain(String s) {
        if (s.length() > SUBDOMAIN_MAX) {
            return false;
        }
        for (String part : s.split("\\.", -1)) {
            if (!isLabel(part)) {
                return false;
            }
        }
        return true;
    }
}
