package io.kvcacheinjector.ports.in;

import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The per-install CacheBlend configuration (docs/reference/cacheblend-injection.md, decisions C3, C6 and C9 in docs/explanation/decisions.md).
 *
 * @param allowedNamespaces  namespaces whose engines Pods of any namespace may use (server flag
 *                           {@code --cacheblend-allowed-namespaces ns1,ns2}); an engine in the Pod's own namespace is
 *                           always allowed
 * @param failClosed         whether skips become refusals (server flag {@code --cacheblend-fail-closed})
 * @param excludedNamespaces namespaces whose Pods are admitted unchanged, as the webhook's {@code namespaceSelector}
 *                           excludes them: the webhook's own namespace, {@code kube-system} and {@code kube-public}
 */
public record CacheBlendSettings(Set<String> allowedNamespaces, boolean failClosed, Set<String> excludedNamespaces) {

    /** {@code kube-system} and {@code kube-public}, excluded besides the webhook's own namespace. */
    public static final Set<String> SYSTEM_NAMESPACES = Set.of("kube-system", "kube-public");

    private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    public CacheBlendSettings {
        allowedNamespaces = Set.copyOf(Objects.requireNonNull(allowedNamespaces, "allowedNamespaces"));
        excludedNamespaces = Set.copyOf(Objects.requireNonNull(excludedNamespaces, "excludedNamespaces"));
    }

    /**
     * Builds the settings from the server flags.
     *
     * @param allowedNamespacesCsv the value of {@code --cacheblend-allowed-namespaces}: comma-separated namespace
     *                             names, blanks ignored; empty for none
     * @param failClosed           whether {@code --cacheblend-fail-closed} is set
     * @param webhookNamespace     the namespace the webhook runs in
     * @throws IllegalArgumentException naming the entry when a namespace name is not a valid Kubernetes namespace name
     */
    public static CacheBlendSettings of(String allowedNamespacesCsv, boolean failClosed, String webhookNamespace) {
        Set<String> allowed = new LinkedHashSet<>();
        for (String part : Objects.requireNonNull(allowedNamespacesCsv, "allowedNamespacesCsv").split(",", -1)) {
            String ns = part.trim();
            if (ns.isEmpty()) {
                continue;
            }
            if (!NAMESPACE.matcher(ns).matches()) {
                throw new IllegalArgumentException("--cacheblend-allowed-namespaces: \"" + ns
                        + "\" is not a namespace name (lowercase letters, digits and '-', at most 63); correct the"
                        + " list, for example --cacheblend-allowed-namespaces=tensormesh-operator,cacheblend");
            }
            allowed.add(ns);
        }
        Set<String> excluded = new LinkedHashSet<>(SYSTEM_NAMESPACES);
        if (webhookNamespace != null && !webhookNamespace.isBlank()) {
            excluded.add(webhookNamespace.trim());
        }
        return new CacheBlendSettings(allowed, failClosed, excluded);
    }
}
