package io.kvcacheinjector.app.check;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code check} learns about the install from its MutatingWebhookConfiguration: the two mutating webhooks (by
 * their fixed names, chart template webhooks.yaml), the release namespace and the namespaces each webhook excludes.
 */
record Install(Optional<Registered> kvcache, Optional<Registered> cacheBlend, Optional<String> releaseNamespace) {
    static final String KVCACHE_WEBHOOK = "inject.kvcache.kvcache-injector.io";
    static final String CACHEBLEND_WEBHOOK = "inject.cacheblend.kvcache-injector.io";
    static final Set<String> OWN_WEBHOOKS = Set.of(KVCACHE_WEBHOOK, CACHEBLEND_WEBHOOK);

    /** One registered webhook, the configuration that holds it and that configuration's annotations. */
    record Registered(String configuration, MutatingWebhook webhook, Map<String, String> configurationAnnotations) {
        String object() {
            return "MutatingWebhookConfiguration " + configuration + " (webhook " + webhook.getName() + ")";
        }

        /** The namespaces its {@code namespaceSelector} excludes by {@code kubernetes.io/metadata.name NotIn}. */
        Set<String> excludedNamespaces() {
            Set<String> out = new LinkedHashSet<>();
            LabelSelector selector = webhook.getNamespaceSelector();
            if (selector != null && selector.getMatchExpressions() != null) {
                for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
                    if ("kubernetes.io/metadata.name".equals(r.getKey()) && "NotIn".equals(r.getOperator())
                            && r.getValues() != null) {
                        out.addAll(r.getValues());
                    }
                }
            }
            return out;
        }

        boolean failClosed() {
            return "Fail".equals(webhook.getFailurePolicy());
        }
    }

    static Install of(List<MutatingWebhookConfiguration> configurations) {
        Optional<Registered> kvcache = find(configurations, KVCACHE_WEBHOOK);
        Optional<Registered> cacheBlend = find(configurations, CACHEBLEND_WEBHOOK);
        Optional<String> release = kvcache.or(() -> cacheBlend).flatMap(Install::releaseNamespace);
        return new Install(kvcache, cacheBlend, release);
    }

    /** The Service's namespace, or the first excluded namespace (the chart lists the release namespace first). */
    private static Optional<String> releaseNamespace(Registered r) {
        var service = r.webhook().getClientConfig() == null ? null : r.webhook().getClientConfig().getService();
        if (service != null && service.getNamespace() != null) {
            return Optional.of(service.getNamespace());
        }
        return r.excludedNamespaces().stream().findFirst();
    }

    private static Optional<Registered> find(List<MutatingWebhookConfiguration> configurations, String webhook) {
        for (MutatingWebhookConfiguration c : configurations) {
            for (MutatingWebhook w : c.getWebhooks() == null ? List.<MutatingWebhook>of() : c.getWebhooks()) {
                if (webhook.equals(w.getName())) {
                    return Optional.of(new Registered(c.getMetadata().getName(), w,
                            Optional.ofNullable(c.getMetadata().getAnnotations()).orElse(Map.of())));
                }
            }
        }
        return Optional.empty();
    }
}
