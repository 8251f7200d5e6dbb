package io.kvcacheinjector.app.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.zjsonpatch.JsonPatch;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.cacheblend.CacheBlendKeys;
import io.kvcacheinjector.domain.cacheblend.EngineReference;
import io.kvcacheinjector.domain.kvcache.KvCacheKeys;
import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.ports.in.CacheBlendMutateUseCase;
import io.kvcacheinjector.ports.in.KvCacheMutateUseCase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The workloads' side of {@code check}: every opted-in template and Pod in scope, decided now by the webhook's own use
 * cases ({@code workload-refused}, {@code workload-skipped}), checked for its injection record
 * ({@code pod-not-injected}), the excluded namespaces ({@code release-namespace-opt-in}) and, for a CacheBlend
 * injection, its namespace's Pod Security level and the pull Secrets it adds.
 */
final class WorkloadChecks {
    static final String PSS_ENFORCE = "pod-security.kubernetes.io/enforce";
    private static final String KV_LABEL = KvCacheKeys.LABEL_INJECT;
    private static final String KV_INJECTED = "kvcache.gpustack.ai/injected";
    private static final String CB_LABEL = CacheBlendKeys.LABEL_INJECT;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final Optional<String> namespace;
    private final Findings findings;
    private final Map<String, Optional<Map<String, String>>> namespaceLabels = new HashMap<>();
    private final Set<String> enginesToCheck = new TreeSet<>();

    WorkloadChecks(KubernetesClient client, Optional<String> namespace, Findings findings) {
        this.client = client;
        this.namespace = namespace;
        this.findings = findings;
    }

    /** The CacheBlendEngines ({@code namespace/name}) the opted-in templates in scope name. */
    Set<String> enginesNamed() {
        return Set.copyOf(enginesToCheck);
    }


    record Deciders(KvCacheMutateUseCase kvcache, CacheBlendMutateUseCase cacheBlend) {
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
    boolean checkWorkloads(Install install, Deciders deciders, Set<String> kvExcluded,
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
                findings.add(FindingCode.RELEASE_NAMESPACE_OPT_IN, s.object(), s.object() + " opts in with " + label
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
            findings.add(FindingCode.POD_NOT_INJECTED, s.object(), s.object() + " has " + KV_LABEL + "=\"true\" and no "
                    + KV_INJECTED + " record, so it runs without the KV cache configuration (created before the"
                    + " webhook, or while it could not be called)", "delete the Pod so that it is created again"
                    + " through the webhook");
            return true;
        }
        if (cb && !CacheBlendKeys.isTrue(s.annotations().get(CacheBlendKeys.INJECTED))) {
            String skip = s.annotations().get(CacheBlendKeys.SKIP_REASON);
            if (skip != null) {
                findings.add(FindingCode.WORKLOAD_SKIPPED, s.object(), s.object() + " was admitted without CacheBlend: "
                        + CacheBlendKeys.SKIP_REASON + " is \"" + skip + "\"", "fix what " + skip + " names"
                        + " (docs/how-to/troubleshooting.md), then delete the Pod so that it is created again");
                return false;
            } else {
                findings.add(FindingCode.POD_NOT_INJECTED, s.object(), s.object() + " has " + CB_LABEL + "=\"true\" and"
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
                findings.add(FindingCode.WORKLOAD_REFUSED, s.object(), s.object() + ": " + r.message(),
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
            case Decision.Refuse r -> findings.add(FindingCode.WORKLOAD_REFUSED, s.object(), s.object() + ": " + r.message(),
                    "change the template as the refusal says, or fix the object it names");
            case Decision.Skip k -> findings.add(FindingCode.WORKLOAD_SKIPPED, s.object(), s.object()
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
            findings.add(FindingCode.NAMESPACE_NOT_PRIVILEGED, s.object(), "Namespace " + s.namespace() + " has "
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
                    findings.add(FindingCode.PULL_SECRET_MISSING, s.object(), "Secret " + s.namespace() + "/" + secret
                            + ", which CacheBlend adds to imagePullSecrets of " + s.object()
                            + "'s Pods for the private plugin image, does not exist there, so the cb-plugin-stage"
                            + " init container fails with ImagePullBackOff", "create it in " + s.namespace()
                            + ": kubectl -n " + s.namespace() + " create secret docker-registry " + secret
                            + " --docker-server=… --docker-username=… --docker-password=…");
                }
            } catch (KubernetesClientException e) {
                findings.notChecked("Secret " + s.namespace() + "/" + secret + " (" + Reads.reason(e) + ")");
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
                findings.notChecked("Namespace " + n + " (" + Reads.reason(e) + ")");
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
            findings.notChecked(what + " in " + namespace.map(n -> "namespace " + n).orElse("all namespaces") + " ("
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

}
