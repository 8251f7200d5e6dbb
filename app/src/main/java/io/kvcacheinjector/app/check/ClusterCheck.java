package io.kvcacheinjector.app.check;

import io.kvcacheinjector.app.wiring.AdmissionWiring;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ServiceReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.zjsonpatch.JsonPatch;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.cacheblend.CacheBlendKeys;
import io.kvcacheinjector.domain.cacheblend.EngineReference;
import io.kvcacheinjector.domain.kvcache.KvCacheKeys;
import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.ports.in.CacheBlendMutateUseCase;
import io.kvcacheinjector.ports.in.KvCacheMutateUseCase;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.spi.Engines;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The checks of {@code check}, in the order of {@link FindingCode}: the install's webhooks, the CRDs it reads,
 * every opted-in workload template and Pod in scope (decided now by the webhook's own use cases over a
 * {@link LiveClusterDirectory}), then the CacheBlendEngines in scope or named by those workloads. Read-only.
 */
public final class ClusterCheck {
    static final String PSS_ENFORCE = "pod-security.kubernetes.io/enforce";
    private static final String KV_LABEL = KvCacheKeys.LABEL_INJECT;
    private static final String KV_INJECTED = "kvcache.gpustack.ai/injected";
    private static final String CB_LABEL = CacheBlendKeys.LABEL_INJECT;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<ClusterKind> KVCACHE_KINDS = List.of(ClusterKind.KV_CACHE_POOL_BINDING,
            ClusterKind.KV_CACHE_POOL, ClusterKind.KV_CACHE_BACKEND);

    /** The cluster could not be read at all: {@code check} exits 2 with this one line. */
    public static final class ClusterUnreadable extends Exception {
        ClusterUnreadable(String message) {
            super(message);
        }
    }

    private final KubernetesClient client;
    private final Optional<String> namespace;
    private final Engines engines;
    private final List<Finding> findings = new ArrayList<>();
    private final Map<String, Optional<Map<String, String>>> namespaceLabels = new HashMap<>();
    private final Set<String> enginesToCheck = new TreeSet<>();
    private final Set<String> notChecked = new LinkedHashSet<>();

    /**
     * @param namespace the namespace to look at, or empty for all namespaces
     */
    public ClusterCheck(KubernetesClient client, Optional<String> namespace, Engines engines) {
        this.client = Objects.requireNonNull(client, "client");
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.engines = Objects.requireNonNull(engines, "engines");
    }

    /** Runs every check; the findings in catalogue order, then by object. */
    public List<Finding> run() throws ClusterUnreadable {
        List<MutatingWebhookConfiguration> configurations;
        try {
            configurations = client.admissionRegistration().v1().mutatingWebhookConfigurations().list().getItems();
        } catch (KubernetesClientException e) {
            throw new ClusterUnreadable("cannot read the cluster at " + client.getMasterUrl() + ": listing"
                    + " MutatingWebhookConfigurations failed (" + Reads.reason(e) + "); check the kubeconfig, the"
                    + " context and that these credentials may list mutatingwebhookconfigurations");
        }
        Install install = Install.of(configurations);
        InstallArgs args = installArgs(install);
        checkWebhooks(install, configurations);
        boolean cacheBlendCrd = checkCrds(install);

        LiveClusterDirectory directory = new LiveClusterDirectory(client, args.settingsNamespace());
        Set<String> cbExcluded = install.cacheBlend().map(Install.Registered::excludedNamespaces)
                .orElse(Set.of());
        CacheBlendSettings cacheBlendSettings = new CacheBlendSettings(args.allowedNamespaces(),
                install.cacheBlend().map(Install.Registered::failClosed).orElse(false), Set.of());
        // the use cases the webhook runs, from the one wiring every command uses
        AdmissionUseCases useCases = AdmissionWiring.of(directory, directory, engines, cacheBlendSettings).useCases();
        Deciders deciders = new Deciders(useCases.kvCacheMutate(), useCases.cacheBlendMutate());
        boolean cacheBlendUsed = checkWorkloads(install, deciders,
                install.kvcache().map(Install.Registered::excludedNamespaces).orElse(Set.of()), cbExcluded);
        if (cacheBlendUsed && install.cacheBlend().isEmpty()) {
            add(FindingCode.WEBHOOK_MISSING, "MutatingWebhookConfiguration (none)", "workloads opt in with "
                    + CB_LABEL + " but no MutatingWebhookConfiguration registers " + Install.CACHEBLEND_WEBHOOK
                    + ", so nothing injects CacheBlend", "install the chart with cacheBlend.enabled=true (the default)");
        }
        if (cacheBlendCrd) {
            checkEngines();
        }
        for (String read : notChecked) {
            add(FindingCode.NOT_CHECKED, read, "reading " + read + " was forbidden or failed, so the checks that"
                    + " need it were not made", FindingCode.NOT_CHECKED.fix());
        }
        List<Finding> sorted = new ArrayList<>(findings);
        sorted.sort(Comparator.comparing((Finding f) -> f.code().ordinal()).thenComparing(Finding::object));
        return List.copyOf(new LinkedHashSet<>(sorted));
    }

    // ------------------------------------------------------------------------------------------ the install

    /** The server flags of the install's Deployment that change decisions; defaults when it cannot be read. */
    record InstallArgs(Set<String> allowedNamespaces, String settingsNamespace) {
    }

    private InstallArgs installArgs(Install install) {
        Set<String> allowed = new LinkedHashSet<>();
        String settings = "gpustack-system";
        Optional<Deployment> deployment = Optional.empty();
        if (install.releaseNamespace().isPresent()) {
            String ns = install.releaseNamespace().get();
            try {
                deployment = client.apps().deployments().inNamespace(ns)
                        .withLabel("app.kubernetes.io/name", "kvcache-injector").list().getItems().stream().findFirst();
            } catch (KubernetesClientException e) {
                notChecked.add("Deployments in namespace " + ns + " (" + Reads.reason(e)
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
        return new InstallArgs(allowed, settings);
    }

    private void checkWebhooks(Install install, List<MutatingWebhookConfiguration> configurations) {
        if (install.kvcache().isEmpty() && install.cacheBlend().isEmpty()) {
            add(FindingCode.WEBHOOK_MISSING, "MutatingWebhookConfiguration (none)", "no MutatingWebhookConfiguration"
                    + " registers " + Install.KVCACHE_WEBHOOK + " or " + Install.CACHEBLEND_WEBHOOK
                    + ", so no Pod is injected", "install the chart: helm upgrade --install kvcache-injector"
                    + " deploy/helm/kvcache-injector -n kvcache-system --create-namespace");
        } else if (install.kvcache().isEmpty()) {
            add(FindingCode.WEBHOOK_MISSING, "MutatingWebhookConfiguration (none)", "no MutatingWebhookConfiguration"
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
                    add(FindingCode.CA_BUNDLE_EMPTY, r.object(), r.object() + " has an empty clientConfig.caBundle, so"
                            + " the API server cannot verify the webhook's certificate and every call fails",
                            FindingCode.CA_BUNDLE_EMPTY.fix());
                }
                String svc = service.getNamespace() + "/" + service.getName() + ":"
                        + Optional.ofNullable(service.getPort()).orElse(443);
                if (probed.add(svc)) {
                    probeReadiness(r, service);
                }
            } else if (url != null && probed.add("url " + r.configuration())) {
                add(FindingCode.WEBHOOK_URL, r.object(), r.object() + " is called at " + url
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
                        add(FindingCode.WEBHOOK_CONFLICT, object, object + " also selects Pods by " + label
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
            add(FindingCode.WEBHOOK_UNREADY, object, "/readyz of " + object + " (called by " + r.object()
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
            notChecked.add("services/proxy of " + object + " (HTTP " + code + ", " + answer + ")");
            return;
        }
        add(FindingCode.WEBHOOK_UNREADY, object, "/readyz of " + object + " (called by " + r.object()
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
    private boolean checkCrds(Install install) {
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
                add(FindingCode.CRD_MISSING, "CustomResourceDefinition " + crd, "the API server does not serve "
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
            notChecked.add(kind.kind() + " in all namespaces (" + Reads.reason(e) + ")");
            return true;
        }
    }

    // ------------------------------------------------------------------------------------------ workloads

    private record Deciders(KvCacheMutateUseCase kvcache, CacheBlendMutateUseCase cacheBlend) {
    }

    /** One object with a Pod template (or a Pod) in scope. */
    private record Subject(String kind, String namespace, String name, Map<String, Object> template, boolean pod,
                           boolean bare, Map<String, String> annotations, String phase) {
        String object() {
            return kind + " " + namespace + "/" + name;
        }

        @SuppressWarnings("unchecked")
        Map<String, String> labels() {
            Object md = template.get("metadata");
            if (md instanceof Map<?, ?> m && m.get("labels") instanceof Map<?, ?> l) {
                return (Map<String, String>) l;
            }
            return Map.of();
        }
    }

    /** Returns whether any workload in scope opts in to CacheBlend. */
    private boolean checkWorkloads(Install install, Deciders deciders, Set<String> kvExcluded,
                                   Set<String> cbExcluded) {
        boolean cacheBlendUsed = false;
        for (Subject s : subjects()) {
            Map<String, String> labels = s.labels();
            boolean kv = "true".equals(labels.get(KV_LABEL));
            boolean cb = CacheBlendKeys.isTrue(labels.get(CB_LABEL));
            if (!kv && !cb) {
                continue;
            }
            cacheBlendUsed |= cb;
            Set<String> excluded = new LinkedHashSet<>(Set.of("kube-system"));
            excluded.addAll(kv ? kvExcluded : Set.of());
            excluded.addAll(cb ? cbExcluded : Set.of());
            if (excluded.contains(s.namespace())) {
                String label = kv ? KV_LABEL : CB_LABEL;
                add(FindingCode.RELEASE_NAMESPACE_OPT_IN, s.object(), s.object() + " opts in with " + label
                        + " in namespace " + s.namespace() + ", which the webhooks exclude"
                        + (install.releaseNamespace().filter(s.namespace()::equals).isPresent()
                                ? " (it is the install's release namespace)" : "")
                        + ", so it is never injected", "run it in another namespace"
                        + (cb ? "; keep naming the engine as " + s.namespace() + "/<name>" : ""));
                continue;
            }
            if (s.pod()) {
                if ("Succeeded".equals(s.phase()) || "Failed".equals(s.phase())) {
                    continue;
                }
                if (!podRecord(s, kv, cb) || !s.bare()) {
                    continue;
                }
            }
            decide(s, deciders, kv, cb);
        }
        return cacheBlendUsed;
    }

    /**
     * Reports a running Pod without its injection record; true when the Pod should also be decided now (a Pod that
     * was never seen by the webhook), false when it was injected or its skip was recorded.
     */
    private boolean podRecord(Subject s, boolean kv, boolean cb) {
        if (kv && !s.annotations().containsKey(KV_INJECTED)) {
            add(FindingCode.POD_NOT_INJECTED, s.object(), s.object() + " has " + KV_LABEL + "=\"true\" and no "
                    + KV_INJECTED + " record, so it runs without the KV cache configuration (created before the"
                    + " webhook, or while it could not be called)", "delete the Pod so that it is created again"
                    + " through the webhook");
            return true;
        }
        if (cb && !CacheBlendKeys.isTrue(s.annotations().get(CacheBlendKeys.INJECTED))) {
            String skip = s.annotations().get(CacheBlendKeys.SKIP_REASON);
            if (skip != null) {
                add(FindingCode.WORKLOAD_SKIPPED, s.object(), s.object() + " was admitted without CacheBlend: "
                        + CacheBlendKeys.SKIP_REASON + " is \"" + skip + "\"", "fix what " + skip + " names"
                        + " (docs/how-to/troubleshooting.md), then delete the Pod so that it is created again");
                return false;
            } else {
                add(FindingCode.POD_NOT_INJECTED, s.object(), s.object() + " has " + CB_LABEL + "=\"true\" and"
                        + " neither " + CacheBlendKeys.INJECTED + " nor " + CacheBlendKeys.SKIP_REASON
                        + ", so it runs without CacheBlend (created before the webhook, or while the fail-open"
                        + " webhook could not be called)", "delete the Pod so that it is created again through"
                        + " the webhook");
                return true;
            }
        }
        return false;
    }

    private void decide(Subject s, Deciders deciders, boolean kv, boolean cb) {
        Map<String, Object> template = s.template();
        if (kv || !cb) {
            Decision d = deciders.kvcache().mutate(s.namespace(), new ReceivedPod(template));
            if (d instanceof Decision.Refuse r) {
                add(FindingCode.WORKLOAD_REFUSED, s.object(), s.object() + ": " + r.message(),
                        "change the template as the refusal says, or fix the object it names");
                return;
            }
        }
        if (!cb) {
            return;
        }
        Optional.ofNullable(annotation(template, CacheBlendKeys.ENGINE)).ifPresent(v -> {
            if (EngineReference.parse(v, s.namespace()) instanceof EngineReference.Parsed p) {
                enginesToCheck.add(p.reference().namespace() + "/" + p.reference().name());
            }
        });
        switch (deciders.cacheBlend().mutate(s.namespace(), new ReceivedPod(template))) {
            case Decision.Refuse r -> add(FindingCode.WORKLOAD_REFUSED, s.object(), s.object() + ": " + r.message(),
                    "change the template as the refusal says, or fix the object it names");
            case Decision.Skip k -> add(FindingCode.WORKLOAD_SKIPPED, s.object(), s.object()
                    + " would be admitted without CacheBlend: " + k.message(), "fix what " + k.code().id()
                    + " names (docs/how-to/troubleshooting.md), then let the workload roll");
            case Decision.Admit a -> {
                if (!a.patch().isEmpty()) {
                    checkCacheBlendNamespace(s);
                    checkPullSecrets(s, a.patch());
                }
            }
        }
    }

    private void checkCacheBlendNamespace(Subject s) {
        Optional<Map<String, String>> labels = namespaceLabels(s.namespace());
        String enforce = labels.map(l -> l.get(PSS_ENFORCE)).orElse(null);
        if (enforce != null && !enforce.equals("privileged")) {
            add(FindingCode.NAMESPACE_NOT_PRIVILEGED, s.object(), "Namespace " + s.namespace() + " has "
                    + PSS_ENFORCE + "=\"" + enforce + "\", so Pod Security rejects the hostIPC (or hostPath"
                    + " /dev/shm) that CacheBlend injects into " + s.object() + "'s Pods",
                    "label the namespace: kubectl label ns " + s.namespace() + " " + PSS_ENFORCE
                            + "=privileged --overwrite, or run the workload in a namespace that is");
        }
    }

    private void checkPullSecrets(Subject s, List<PatchOp> patch) {
        Set<String> before = pullSecrets(JSON.valueToTree(s.template()));
        Set<String> after = pullSecrets(apply(JSON.valueToTree(s.template()), patch));
        after.removeAll(before);
        for (String secret : after) {
            try {
                if (client.secrets().inNamespace(s.namespace()).withName(secret).get() == null) {
                    add(FindingCode.PULL_SECRET_MISSING, s.object(), "Secret " + s.namespace() + "/" + secret
                            + ", which CacheBlend adds to imagePullSecrets of " + s.object()
                            + "'s Pods for the private plugin image, does not exist there, so the cb-plugin-stage"
                            + " init container fails with ImagePullBackOff", "create it in " + s.namespace()
                            + ": kubectl -n " + s.namespace() + " create secret docker-registry " + secret
                            + " --docker-server=… --docker-username=… --docker-password=…");
                }
            } catch (KubernetesClientException e) {
                notChecked.add("Secret " + s.namespace() + "/" + secret + " (" + Reads.reason(e) + ")");
            }
        }
    }

    private static Set<String> pullSecrets(JsonNode template) {
        Set<String> out = new LinkedHashSet<>();
        for (JsonNode n : template.path("spec").path("imagePullSecrets")) {
            if (n.path("name").isTextual()) {
                out.add(n.path("name").asText());
            }
        }
        return out;
    }

    private static JsonNode apply(JsonNode target, List<PatchOp> patch) {
        ArrayNode ops = JSON.createArrayNode();
        for (PatchOp op : patch) {
            ObjectNode n = ops.addObject();
            n.put("op", op.op().json());
            n.put("path", op.path());
            if (op.op() != PatchOp.Op.REMOVE) {
                n.set("value", JSON.valueToTree(op.value()));
            }
        }
        return JsonPatch.apply(ops, target);
    }

    private static String annotation(Map<String, Object> template, String key) {
        if (template.get("metadata") instanceof Map<?, ?> md && md.get("annotations") instanceof Map<?, ?> a
                && a.get(key) instanceof String s) {
            return s;
        }
        return null;
    }

    private Optional<Map<String, String>> namespaceLabels(String name) {
        return namespaceLabels.computeIfAbsent(name, n -> {
            try {
                Namespace ns = client.namespaces().withName(n).get();
                return Optional.of(ns == null || ns.getMetadata().getLabels() == null
                        ? Map.<String, String>of() : ns.getMetadata().getLabels());
            } catch (KubernetesClientException e) {
                notChecked.add("Namespace " + n + " (" + Reads.reason(e) + ")");
                return Optional.empty();
            }
        });
    }

    private List<Subject> subjects() {
        List<Subject> out = new ArrayList<>();
        collect(out, "Deployment", client.apps().deployments(), d -> d.getSpec() == null ? null
                : d.getSpec().getTemplate());
        collect(out, "StatefulSet", client.apps().statefulSets(), d -> d.getSpec() == null ? null
                : d.getSpec().getTemplate());
        collect(out, "DaemonSet", client.apps().daemonSets(), d -> d.getSpec() == null ? null
                : d.getSpec().getTemplate());
        collect(out, "ReplicaSet", client.apps().replicaSets(), d -> d.getSpec() == null
                || ownedBy(d, "Deployment") ? null : d.getSpec().getTemplate());
        collect(out, "Job", client.batch().v1().jobs(), d -> d.getSpec() == null || ownedBy(d, "CronJob") ? null
                : d.getSpec().getTemplate());
        collect(out, "CronJob", client.batch().v1().cronjobs(), d -> d.getSpec() == null
                || d.getSpec().getJobTemplate() == null || d.getSpec().getJobTemplate().getSpec() == null ? null
                : d.getSpec().getJobTemplate().getSpec().getTemplate());
        List<io.fabric8.kubernetes.api.model.Pod> pods = list("Pods", client.pods());
        for (var p : pods) {
            @SuppressWarnings("unchecked")
            Map<String, Object> tree = client.getKubernetesSerialization().convertValue(p, Map.class);
            tree.remove("status");
            out.add(new Subject("Pod", p.getMetadata().getNamespace(), p.getMetadata().getName(), tree, true,
                    controller(p).isEmpty(), p.getMetadata().getAnnotations() == null ? Map.of()
                    : p.getMetadata().getAnnotations(), p.getStatus() == null ? "" : p.getStatus().getPhase()));
        }
        return out;
    }

    private <T extends HasMetadata, L extends io.fabric8.kubernetes.api.model.KubernetesResourceList<T>> void collect(
            List<Subject> out, String kind, MixedOperation<T, L, ? extends Resource<T>> op,
            java.util.function.Function<T, Object> template) {
        for (T item : list(kind + "s", op)) {
            Object t = template.apply(item);
            if (t == null) {
                continue;
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> tree = client.getKubernetesSerialization().convertValue(t, Map.class);
            out.add(new Subject(kind, item.getMetadata().getNamespace(), item.getMetadata().getName(),
                    new LinkedHashMap<>(tree), false, false, Map.of(), ""));
        }
    }

    private <T extends HasMetadata, L extends io.fabric8.kubernetes.api.model.KubernetesResourceList<T>> List<T> list(
            String what, MixedOperation<T, L, ? extends Resource<T>> op) {
        try {
            return namespace.isPresent() ? op.inNamespace(namespace.get()).list().getItems()
                    : op.inAnyNamespace().list().getItems();
        } catch (KubernetesClientException e) {
            notChecked.add(what + " in " + namespace.map(n -> "namespace " + n).orElse("all namespaces") + " ("
                    + Reads.reason(e) + ")");
            return List.of();
        }
    }

    private static boolean ownedBy(HasMetadata o, String kind) {
        return controller(o).filter(r -> kind.equals(r.getKind())).isPresent();
    }

    private static Optional<OwnerReference> controller(HasMetadata o) {
        List<OwnerReference> refs = o.getMetadata().getOwnerReferences();
        return refs == null ? Optional.empty()
                : refs.stream().filter(r -> Boolean.TRUE.equals(r.getController())).findFirst();
    }

    // ------------------------------------------------------------------------------------------ engines

    private void checkEngines() {
        var resources = client.genericKubernetesResources(
                LiveClusterDirectory.context(ClusterKind.CACHE_BLEND_ENGINE));
        Map<String, GenericKubernetesResource> engines = new LinkedHashMap<>();
        try {
            for (GenericKubernetesResource e : (namespace.isPresent()
                    ? resources.inNamespace(namespace.get()) : resources.inAnyNamespace()).list().getItems()) {
                engines.put(e.getMetadata().getNamespace() + "/" + e.getMetadata().getName(), e);
            }
        } catch (KubernetesClientException e) {
            notChecked.add("CacheBlendEngines in " + namespace.map(n -> "namespace " + n).orElse("all namespaces")
                    + " (" + Reads.reason(e) + ")");
        }
        for (String ref : enginesToCheck) {
            if (!engines.containsKey(ref)) {
                String[] nn = ref.split("/", 2);
                try {
                    GenericKubernetesResource e = resources.inNamespace(nn[0]).withName(nn[1]).get();
                    if (e != null) {
                        engines.put(ref, e);
                    }
                } catch (KubernetesClientException e) {
                    notChecked.add("CacheBlendEngine " + ref + " (" + Reads.reason(e) + ")");
                }
            }
        }
        for (GenericKubernetesResource e : engines.values()) {
            checkEngine(e);
        }
    }

    @SuppressWarnings("unchecked")
    private void checkEngine(GenericKubernetesResource e) {
        String ns = e.getMetadata().getNamespace();
        String name = e.getMetadata().getName();
        String object = "CacheBlendEngine " + ns + "/" + name;
        String configMap = CacheBlendKeys.connectionName(name);
        try {
            if (client.configMaps().inNamespace(ns).withName(configMap).get() == null) {
                add(FindingCode.ENGINE_NOT_RECONCILED, object, object + " has no ConfigMap " + ns + "/" + configMap
                        + ", so the CacheBlend webhook skips every Pod that names it (connection-missing)",
                        "check that the engine's operator runs; if it does, read the engine's ConfigValid condition"
                                + " and correct its spec");
            }
        } catch (KubernetesClientException ex) {
            notChecked.add("ConfigMap " + ns + "/" + configMap + " (" + Reads.reason(ex) + ")");
        }
        Map<String, Object> tree = client.getKubernetesSerialization().convertValue(e, Map.class);
        if (tree.get("status") instanceof Map<?, ?> status && status.get("conditions") instanceof List<?> conditions) {
            for (Object c : conditions) {
                if (c instanceof Map<?, ?> m && "ConfigValid".equals(m.get("type")) && "False".equals(m.get("status"))) {
                    add(FindingCode.ENGINE_NOT_RECONCILED, object, object + " reports ConfigValid=False ("
                            + m.get("reason") + ": " + m.get("message") + "), so its operator does not reconcile it",
                            "correct the engine's spec as the condition says");
                }
            }
        }
        Map<String, Object> spec = tree.get("spec") instanceof Map<?, ?> s ? (Map<String, Object>) s : Map.of();
        String engineTag = text(spec, "image", "tag");
        String payloadTag = text(spec, "injection", "payloadImage", "tag");
        if (engineTag != null && payloadTag != null && !engineTag.equals(payloadTag)) {
            add(FindingCode.IMAGES_MISMATCHED, object, object + " runs engine image tag \"" + engineTag
                    + "\" (spec.image.tag) and injects payload image tag \"" + payloadTag
                    + "\" (spec.injection.payloadImage.tag); an unmatched cacheblend-plugin and vllm-openai pair"
                    + " fails at start with an ImportError", "set both tags to the same LMCache build (Helm values"
                    + " cacheBlend.spec.image.tag and cacheBlend.spec.injection.payloadImage.tag)");
        }
    }

    private static String text(Map<String, Object> tree, String... path) {
        Object at = tree;
        for (String p : path) {
            if (!(at instanceof Map<?, ?> m)) {
                return null;
            }
            at = m.get(p);
        }
        return at instanceof String s && !s.isBlank() ? s : null;
    }

    private void add(FindingCode code, String object, String message, String fix) {
        findings.add(new Finding(code, object, message, fix));
    }
}
