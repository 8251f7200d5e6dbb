package io.kvcacheinjector.app.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ServiceReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import io.kvcacheinjector.domain.cacheblend.CacheBlendKeys;
import io.kvcacheinjector.domain.kvcache.KvCacheKeys;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The install's side of {@code check}: its webhook configurations ({@code webhook-missing}, {@code ca-bundle-empty},
 * {@code webhook-unready} through the API server's service proxy, {@code webhook-url}, {@code webhook-conflict}), the
 * CRDs it reads ({@code crd-missing}) and the server flags of its Deployment that change decisions.
 */
final class InstallChecks {
    private static final String KV_LABEL = KvCacheKeys.LABEL_INJECT;
    private static final String CB_LABEL = CacheBlendKeys.LABEL_INJECT;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<ClusterKind> KVCACHE_KINDS = List.of(ClusterKind.KV_CACHE_POOL_BINDING,
            ClusterKind.KV_CACHE_POOL, ClusterKind.KV_CACHE_BACKEND);

    private final KubernetesClient client;
    private final Findings findings;

    InstallChecks(KubernetesClient client, Findings findings) {
        this.client = client;
        this.findings = findings;
    }


    /**
     * The server flags of the install's Deployment that change decisions; defaults when it cannot be read. With the
     * Deployment, also the Secret its {@code tls} volume mounts and its release ({@code app.kubernetes.io/instance}).
     */
    record InstallArgs(Set<String> allowedNamespaces, String settingsNamespace, Optional<String> tlsSecret,
                       Optional<String> release) {
    }

    InstallArgs installArgs(Install install) {
        Set<String> allowed = new LinkedHashSet<>();
        String settings = "gpustack-system";
        Optional<Deployment> deployment = Optional.empty();
        if (install.releaseNamespace().isPresent()) {
            String ns = install.releaseNamespace().get();
            try {
                deployment = client.apps().deployments().inNamespace(ns)
                        .withLabel("app.kubernetes.io/name", "kvcache-injector").list().getItems().stream().findFirst();
            } catch (KubernetesClientException e) {
                findings.notChecked("Deployments in namespace " + ns + " (" + Reads.reason(e)
                        + "; the install's --cacheblend-allowed-namespaces were taken as empty)");
            }
        }
        if (deployment.isPresent()) {
            var containers = deployment.get().getSpec().getTemplate().getSpec().getContainers();
            List<String> a = containers.isEmpty() || containers.get(0).getArgs() == null
                    ? List.of() : containers.get(0).getArgs();
            for (int i = 0; i < a.size(); i++) {
                String flag = a.get(i);
                String value = null;
                int eq = flag.indexOf('=');
                if (eq > 0) {
                    value = flag.substring(eq + 1);
                    flag = flag.substring(0, eq);
                } else if (i + 1 < a.size()) {
                    value = a.get(i + 1);
                }
                if (value == null) {
                    continue;
                }
                if (flag.equals("--cacheblend-allowed-namespaces")) {
                    for (String s : value.split(",")) {
                        if (!s.isBlank()) {
                            allowed.add(s.trim());
                        }
                    }
                } else if (flag.equals("--settings-namespace")) {
                    settings = value.trim();
                }
            }
        }
        Optional<String> tlsSecret = deployment.flatMap(InstallChecks::tlsSecret);
        Optional<String> release = deployment.map(d -> d.getMetadata().getLabels())
                .map(l -> l.get("app.kubernetes.io/instance"));
        return new InstallArgs(allowed, settings, tlsSecret, release);
    }

    /** The Secret of the Deployment's volume {@code tls} (the chart's), else of its only Secret volume. */
    private static Optional<String> tlsSecret(Deployment deployment) {
        var volumes = deployment.getSpec().getTemplate().getSpec().getVolumes();
        List<io.fabric8.kubernetes.api.model.Volume> secrets = volumes == null ? List.of()
                : volumes.stream().filter(v -> v.getSecret() != null && v.getSecret().getSecretName() != null).toList();
        return secrets.stream().filter(v -> "tls".equals(v.getName())).findFirst()
                .or(() -> secrets.size() == 1 ? Optional.of(secrets.get(0)) : Optional.empty())
                .map(v -> v.getSecret().getSecretName());
    }

    void checkWebhooks(Install install, List<MutatingWebhookConfiguration> configurations) {
        if (install.kvcache().isEmpty() && install.cacheBlend().isEmpty()) {
            findings.add(FindingCode.WEBHOOK_MISSING, "MutatingWebhookConfiguration (none)", "no MutatingWebhookConfiguration"
                    + " registers " + Install.KVCACHE_WEBHOOK + " or " + Install.CACHEBLEND_WEBHOOK
                    + ", so no Pod is injected", "install the chart: helm upgrade --install kvcache-injector"
                    + " deploy/helm/kvcache-injector -n kvcache-system --create-namespace");
        } else if (install.kvcache().isEmpty()) {
            findings.add(FindingCode.WEBHOOK_MISSING, "MutatingWebhookConfiguration (none)", "no MutatingWebhookConfiguration"
                    + " registers " + Install.KVCACHE_WEBHOOK + ", so no Pod labelled " + KV_LABEL
                    + " is injected", "reinstall the chart, which always registers it");
        }
        Set<String> probed = new LinkedHashSet<>();
        for (Install.Registered r : List.of(install.kvcache(), install.cacheBlend()).stream()
                .flatMap(Optional::stream).toList()) {
            var clientConfig = r.webhook().getClientConfig();
            ServiceReference service = clientConfig == null ? null : clientConfig.getService();
            String url = clientConfig == null ? null : clientConfig.getUrl();
            boolean noBundle = clientConfig == null || clientConfig.getCaBundle() == null
                    || clientConfig.getCaBundle().isBlank();
            if (service != null) {
                if (noBundle) {
                    findings.add(FindingCode.CA_BUNDLE_EMPTY, r.object(), r.object() + " has an empty clientConfig.caBundle, so"
                            + " the API server cannot verify the webhook's certificate and every call fails",
                            FindingCode.CA_BUNDLE_EMPTY.fix());
                }
                String svc = service.getNamespace() + "/" + service.getName() + ":"
                        + Optional.ofNullable(service.getPort()).orElse(443);
                if (probed.add(svc)) {
                    probeReadiness(r, service);
                }
            } else if (url != null && probed.add("url " + r.configuration())) {
                findings.add(FindingCode.WEBHOOK_URL, r.object(), r.object() + " is called at " + url
                        + " (webhook.url), not through a Service, so check did not call it",
                        "check that server's /readyz from where the API server runs");
            }
        }
        for (MutatingWebhookConfiguration c : configurations) {
            for (MutatingWebhook w : c.getWebhooks() == null ? List.<MutatingWebhook>of() : c.getWebhooks()) {
                if (Install.OWN_WEBHOOKS.contains(w.getName())) {
                    continue;
                }
                for (String label : List.of(KV_LABEL, CB_LABEL)) {
                    if (selects(w.getObjectSelector(), label)) {
                        String object = "MutatingWebhookConfiguration " + c.getMetadata().getName() + " (webhook "
                                + w.getName() + ")";
                        findings.add(FindingCode.WEBHOOK_CONFLICT, object, object + " also selects Pods by " + label
                                + ", so two webhooks write the same opted-in Pod",
                                "uninstall the other webhook, or change its objectSelector so that one webhook"
                                        + " serves " + label);
                    }
                }
            }
        }
    }

    private static boolean selects(LabelSelector selector, String label) {
        if (selector == null) {
            return false;
        }
        if (selector.getMatchLabels() != null && selector.getMatchLabels().containsKey(label)) {
            return true;
        }
        if (selector.getMatchExpressions() != null) {
            for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
                if (label.equals(r.getKey()) && ("In".equals(r.getOperator()) || "Exists".equals(r.getOperator()))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code /readyz} of the webhook's Service through the API server's service proxy. */
    private void probeReadiness(Install.Registered r, ServiceReference service) {
        int port = Optional.ofNullable(service.getPort()).orElse(443);
        String path = "/api/v1/namespaces/" + service.getNamespace() + "/services/https:" + service.getName() + ":"
                + port + "/proxy/readyz";
        String object = "Service " + service.getNamespace() + "/" + service.getName();
        String answer;
        int code;
        try {
            String base = client.getMasterUrl().toString().replaceAll("/+$", "");
            var http = client.getHttpClient();
            var response = http.sendAsync(http.newHttpRequestBuilder().uri(base + path).build(), String.class)
                    .get(20, java.util.concurrent.TimeUnit.SECONDS);
            code = response.code();
            answer = statusMessage(Optional.ofNullable(response.body()).orElse(""));
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            findings.add(FindingCode.WEBHOOK_UNREADY, object, "/readyz of " + object + " (called by " + r.object()
                    + ") could not be reached through the API server's service proxy: "
                    + cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : " " + firstLine(
                    cause.getMessage())), FindingCode.WEBHOOK_UNREADY.fix());
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (code == 200) {
            return;
        }
        if (code == 401 || code == 403) {
            findings.notChecked("services/proxy of " + object + " (HTTP " + code + ", " + answer + ")");
            return;
        }
        findings.add(FindingCode.WEBHOOK_UNREADY, object, "/readyz of " + object + " (called by " + r.object()
                + "), reached through the API server's service proxy, answered HTTP " + code
                + (answer.isEmpty() ? "" : ": " + answer), FindingCode.WEBHOOK_UNREADY.fix());
    }

    /** The {@code message} of a Kubernetes Status body, or the body's first line. */
    private static String statusMessage(String body) {
        try {
            JsonNode status = JSON.readTree(body);
            if (status != null && status.path("message").isTextual()) {
                return firstLine(status.path("message").asText());
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not JSON: the body as text
        }
        return firstLine(body);
    }

    private static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        t = nl >= 0 ? t.substring(0, nl) : t;
        return t.length() > 300 ? t.substring(0, 300) + "…" : t;
    }

    /** Each kind the install reads is served; returns whether CacheBlendEngines are. */
    boolean checkCrds(Install install) {
        List<ClusterKind> kinds = new ArrayList<>(KVCACHE_KINDS);
        if (install.cacheBlend().isPresent()) {
            kinds.add(ClusterKind.CACHE_BLEND_ENGINE);
        }
        boolean cacheBlendServed = false;
        for (ClusterKind kind : kinds) {
            boolean served = served(kind);
            if (kind == ClusterKind.CACHE_BLEND_ENGINE) {
                cacheBlendServed = served;
            }
            if (!served) {
                String crd = kind.plural() + "." + kind.group();
                findings.add(FindingCode.CRD_MISSING, "CustomResourceDefinition " + crd, "the API server does not serve "
                        + kind.kind() + " (" + kind.apiVersion() + "), which the install reads, so every Pod that"
                        + " needs one is " + (kind == ClusterKind.CACHE_BLEND_ENGINE ? "skipped" : "refused"),
                        kind == ClusterKind.CACHE_BLEND_ENGINE
                                ? "install the CRD " + crd + " (deploy/crds/), or install the chart with"
                                        + " cacheBlend.enabled=false"
                                : "install the CRD " + crd + " (deploy/crds/)");
            }
        }
        if (install.cacheBlend().isEmpty()) {
            cacheBlendServed = served(ClusterKind.CACHE_BLEND_ENGINE);
        }
        return cacheBlendServed;
    }

    private boolean served(ClusterKind kind) {
        var resources = client.genericKubernetesResources(LiveClusterDirectory.context(kind));
        var options = new ListOptionsBuilder().withLimit(1L).build();
        try {
            if (kind.namespaced()) {
                resources.inAnyNamespace().list(options);
            } else {
                resources.list(options);
            }
            return true;
        } catch (KubernetesClientException e) {
            if (Reads.notFound(e)) {
                return false;
            }
            findings.notChecked(kind.kind() + " in all namespaces (" + Reads.reason(e) + ")");
            return true;
        }
    }

}
