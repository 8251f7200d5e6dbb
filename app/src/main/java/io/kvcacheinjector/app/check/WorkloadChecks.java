package io.kvcacheinjector.app.check;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.cacheblend.CacheBlendKeys;
import io.kvcacheinjector.domain.cacheblend.EngineReference;
import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.kvcache.KvCacheKeys;
import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.ports.in.CacheBlendMutateUseCase;
import io.kvcacheinjector.ports.in.KvCacheMutateUseCase;
import java.util.ArrayList;
import java.util.EnumSet;
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
 * ({@code pod-not-injected}), the excluded namespaces ({@code release-namespace-opt-in}) and, for every CacheBlend
 * workload whether or not it would be injected now, its namespace's Pod Security level and the pull Secrets the
 * injection would name. A refusal or skip whose cause is a cluster object (or, for kvcache, an annotation the webhook
 * takes no value of) is followed by what the webhook would answer once that cause is fixed ({@link WhatIf}), so one
 * run says everything it can see.
 */
final class WorkloadChecks {
    static final String PSS_ENFORCE = "pod-security.kubernetes.io/enforce";
    private static final String KV_LABEL = KvCacheKeys.LABEL_INJECT;
    private static final String KV_INJECTED = "kvcache.gpustack.ai/injected";
    private static final String CB_LABEL = CacheBlendKeys.LABEL_INJECT;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** kvcache refusals about cluster objects: the template's own checks come after them. */
    private static final Set<ReasonCode> KV_CLUSTER_STEP = EnumSet.of(ReasonCode.CLUSTER_NOT_READY,
            ReasonCode.BINDING_NOT_FOUND, ReasonCode.BINDING_TERMINATING, ReasonCode.POOL_NOT_FOUND,
            ReasonCode.LEDGER_NOT_READY, ReasonCode.BACKEND_NOT_FOUND, ReasonCode.ENDPOINT_NOT_PUBLISHED,
            ReasonCode.TRANSPORT_MIXED, ReasonCode.TRANSPORT_UNSUPPORTED);
    /** kvcache refusals of an annotation whatever its value; the fix is to remove it, and nothing after depends on it. */
    private static final Set<ReasonCode> KV_ANNOTATION_STEP = EnumSet.of(ReasonCode.ANNOTATION_RESERVED,
            ReasonCode.ANNOTATION_UNKNOWN, ReasonCode.ANNOTATION_DOMAIN);
    /** The kvcache annotations the webhook takes a value of. */
    private static final Set<String> KV_ACCEPTED = Set.of(KvCacheKeys.BINDING, KvCacheKeys.ENGINE,
            KvCacheKeys.MANUFACTURER, KvCacheKeys.ROLE, KvCacheKeys.CONTAINER, KvCacheKeys.LAUNCH_ARGS_FORWARDED);
    /** CacheBlend skips about the engine's reconciliation or the allow-list: the template's own checks come after. */
    private static final Set<ReasonCode> CB_CLUSTER_STEP = EnumSet.of(ReasonCode.ENGINE_REF_FORBIDDEN,
            ReasonCode.CONNECTION_MISSING, ReasonCode.CONNECTION_INVALID);

    private final KubernetesClient client;
    private final LiveClusterDirectory directory;
    private final Optional<String> namespace;
    private final Findings findings;
    private final Map<String, Optional<Map<String, String>>> namespaceLabels = new HashMap<>();
    private final Set<String> enginesToCheck = new TreeSet<>();

    WorkloadChecks(KubernetesClient client, LiveClusterDirectory directory, Optional<String> namespace,
                   Findings findings) {
        this.client = client;
        this.directory = directory;
        this.namespace = namespace;
        this.findings = findings;
    }

    /** The CacheBlendEngines ({@code namespace/name}) the opted-in templates in scope name. */
    Set<String> enginesNamed() {
        return Set.copyOf(enginesToCheck);
    }


    /** The webhook's use cases over the live view, and over the cluster as it will be once a finding is fixed. */
    record Deciders(KvCacheMutateUseCase kvcache, CacheBlendMutateUseCase cacheBlend, WhatIf whatIf) {
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
                if (!podRecord(s, kv, cb)) {
                    if (cb && s.bare() && s.annotations().containsKey(CacheBlendKeys.SKIP_REASON)) {
                        checkCacheBlend(s); // what its next creation meets once the recorded skip is fixed
                    }
                    continue;
                }
                if (!s.bare()) {
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
        if ((kv || !cb) && refusedByKvCache(s, deciders)) {
            return;
        }
        if (!cb) {
            return;
        }
        Map<String, Object> template = s.template();
        Optional<EngineReference> ref = engineReference(s);
        ref.ifPresent(r -> enginesToCheck.add(r.qualified()));
        Decision d = deciders.cacheBlend().mutate(s.namespace(), new ReceivedPod(template));
        switch (d) {
            case Decision.Refuse r -> findings.add(FindingCode.WORKLOAD_REFUSED, s.object(), s.object() + ": " + r.message(),
                    "change the template as the refusal says, or fix the object it names");
            case Decision.Skip k -> findings.add(FindingCode.WORKLOAD_SKIPPED, s.object(), s.object()
                    + " would be admitted without CacheBlend: " + k.message(), "fix what " + k.code().id()
                    + " names (docs/how-to/troubleshooting.md), then let the workload roll");
            case Decision.Admit a -> {
            }
        }
        if (code(d).filter(c -> c == ReasonCode.POD_UNREADABLE || c == ReasonCode.CONTRACTS_CONFLICT).isPresent()) {
            return; // the template itself is in question: which contract it wants is the user's to say first
        }
        // whatever the decision, what a CacheBlend injection needs of the workload's namespace (docs/reference/check.md)
        checkCacheBlend(s);
        cacheBlendBehind(s, deciders, ref, d);
    }

    /**
     * The kvcache decision; a refusal is reported, then what the webhook would refuse next once the refusal's cause
     * is fixed, as long as that cause is a cluster object or an annotation the webhook does not take. True when
     * refused.
     */
    private boolean refusedByKvCache(Subject s, Deciders deciders) {
        Decision d = deciders.kvcache().mutate(s.namespace(), new ReceivedPod(s.template()));
        if (!(d instanceof Decision.Refuse first)) {
            return false;
        }
        findings.add(FindingCode.WORKLOAD_REFUSED, s.object(), s.object() + ": " + first.message(),
                "change the template as the refusal says, or fix the object it names");
        Map<String, Object> template = s.template();
        boolean standIns = false;
        List<ReasonCode> fixed = new ArrayList<>(List.of(first.codes().get(0)));
        for (int step = 0; step < 3; step++) {
            ReasonCode last = fixed.get(fixed.size() - 1);
            if (KV_ANNOTATION_STEP.contains(last)) {
                template = withoutRefusedKvCacheAnnotations(template);
            } else if (KV_CLUSTER_STEP.contains(last)) {
                standIns = true;
            } else {
                break;
            }
            Decision next = standIns ? decideOverStandIns(s.namespace(), template, deciders.whatIf())
                    : deciders.kvcache().mutate(s.namespace(), new ReceivedPod(template));
            if (!(next instanceof Decision.Refuse r) || fixed.contains(r.codes().get(0))) {
                break;
            }
            findings.add(FindingCode.WORKLOAD_REFUSED, s.object(), s.object() + " would then be refused, once "
                    + codes(fixed) + (fixed.size() > 1 ? " are" : " is") + " fixed: " + r.message(),
                    "fix this too, as the refusal says (the template, or the object it names); check reports it now"
                            + " so that one round fixes both");
            fixed.add(r.codes().get(0));
        }
        return true;
    }

    /** The kvcache decision over stand-ins for the Binding chain, the stand-in backend offering each transport in turn. */
    private static Decision decideOverStandIns(String namespace, Map<String, Object> template, WhatIf whatIf) {
        Decision d = null;
        for (String protocol : WhatIf.PROTOCOLS) {
            d = whatIf.kvcache(protocol).mutate(namespace, new ReceivedPod(template));
            if (!(d instanceof Decision.Refuse r) || r.codes().get(0) != ReasonCode.TRANSPORT_UNSUPPORTED) {
                return d;
            }
        }
        return d;
    }

    /**
     * What the CacheBlend webhook would answer next once the engine's connection ConfigMap is right (its operator
     * reconciled it), its namespace is allowed, or an invalid {@code lmcache.ai/pd-role} is removed: reported as the
     * same code, saying which skip it follows.
     */
    private void cacheBlendBehind(Subject s, Deciders deciders, Optional<EngineReference> ref, Decision first) {
        Optional<ReasonCode> code = code(first);
        if (code.isEmpty() || ref.isEmpty()) {
            return;
        }
        Map<String, Object> template = s.template();
        if (code.get() == ReasonCode.PD_ROLE_INVALID) {
            // only the connection key depends on the role, and the stand-in connection holds every key
            template = withoutAnnotation(template, CacheBlendKeys.PD_ROLE);
        } else if (!CB_CLUSTER_STEP.contains(code.get())) {
            return;
        }
        Decision next = deciders.whatIf().cacheBlend(ref.get().namespace()).mutate(s.namespace(),
                new ReceivedPod(template));
        Optional<ReasonCode> nextCode = code(next);
        if (nextCode.isEmpty() || CB_CLUSTER_STEP.contains(nextCode.get()) || nextCode.equals(code)) {
            return;
        }
        String message = next instanceof Decision.Refuse r ? r.message() : ((Decision.Skip) next).message();
        boolean refused = next instanceof Decision.Refuse;
        findings.add(refused ? FindingCode.WORKLOAD_REFUSED : FindingCode.WORKLOAD_SKIPPED, s.object(), s.object()
                + " would then be " + (refused ? "refused" : "admitted without CacheBlend") + ", once "
                + code.get().id() + " is fixed: " + message, "fix what " + nextCode.get().id() + " names too"
                + " (docs/how-to/troubleshooting.md); check reports it now so that one round fixes both");
    }

    private static Optional<ReasonCode> code(Decision d) {
        return switch (d) {
            case Decision.Refuse r -> Optional.of(r.codes().get(0));
            case Decision.Skip k -> Optional.of(k.code());
            case Decision.Admit a -> Optional.empty();
        };
    }

    private static String codes(List<ReasonCode> codes) {
        return String.join(" and ", codes.stream().map(ReasonCode::id).toList());
    }

    /**
     * The template without the {@code kvcache.gpustack.ai/} annotations the webhook refuses whatever their value
     * (reserved, unknown, {@code domain}), as their refusals' fix says: remove them.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> withoutRefusedKvCacheAnnotations(Map<String, Object> template) {
        Map<String, Object> copy = JSON.convertValue(template, Map.class);
        if (copy.get("metadata") instanceof Map<?, ?> md && md.get("annotations") instanceof Map<?, ?> a) {
            ((Map<String, Object>) a).keySet().removeIf(k -> k.startsWith(KvCacheKeys.PREFIX)
                    && !KV_ACCEPTED.contains(k));
        }
        return copy;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> withoutAnnotation(Map<String, Object> template, String key) {
        Map<String, Object> copy = JSON.convertValue(template, Map.class);
        if (copy.get("metadata") instanceof Map<?, ?> md && md.get("annotations") instanceof Map<?, ?> a) {
            ((Map<String, Object>) a).remove(key);
        }
        return copy;
    }

    private Optional<EngineReference> engineReference(Subject s) {
        if (EngineReference.parse(annotation(s.template(), CacheBlendKeys.ENGINE), s.namespace())
                instanceof EngineReference.Parsed p) {
            return Optional.of(p.reference());
        }
        return Optional.empty();
    }

    /** The namespace's Pod Security level and the pull Secrets a CacheBlend injection of {@code s} would name. */
    private void checkCacheBlend(Subject s) {
        checkCacheBlendNamespace(s);
        checkPullSecrets(s);
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

    /**
     * Every Secret the injection would name in {@code imagePullSecrets}: the annotation
     * {@code lmcache.ai/cacheblend-image-pull-secrets} when it is not blank, which replaces the engine's list, or else
     * the engine's {@code spec.injection.imagePullSecrets} (the engine read as the webhook reads it), whether or not
     * the workload would be injected now. Each must exist in the workload's namespace.
     */
    private void checkPullSecrets(Subject s) {
        String annotation = annotation(s.template(), CacheBlendKeys.IMAGE_PULL_SECRETS);
        Set<String> names = new LinkedHashSet<>();
        String source;
        if (annotation != null && !annotation.isBlank()) {
            for (String part : annotation.split(",", -1)) {
                if (!part.isBlank()) {
                    names.add(part.strip());
                }
            }
            source = "the annotation " + CacheBlendKeys.IMAGE_PULL_SECRETS + " of " + s.object();
        } else {
            Optional<EngineReference> ref = engineReference(s);
            if (ref.isEmpty()) {
                return;
            }
            source = "spec.injection.imagePullSecrets of CacheBlendEngine " + ref.get().qualified();
            switch (directory.cacheBlendEngine(ref.get().namespace(), ref.get().name())) {
                case Lookup.Found<CacheBlendEngine> f -> f.value().imagePullSecrets().stream()
                        .filter(n -> !n.isBlank()).forEach(names::add);
                case Lookup.NotFound<CacheBlendEngine> n -> {
                    return; // reported as engine-not-found; its secrets are not known
                }
                case Lookup.Failed<CacheBlendEngine> f -> {
                    findings.notChecked("CacheBlendEngine " + ref.get().qualified() + " (" + f.reason() + ")");
                    return;
                }
            }
        }
        for (String secret : names) {
            try {
                if (client.secrets().inNamespace(s.namespace()).withName(secret).get() == null) {
                    findings.add(FindingCode.PULL_SECRET_MISSING, s.object(), "Secret " + s.namespace() + "/" + secret
                            + ", which the CacheBlend injection puts in imagePullSecrets of " + s.object()
                            + "'s Pods for the private plugin image (named by " + source + "), does not exist there,"
                            + " so the cb-plugin-stage init container fails with ImagePullBackOff", "create it in "
                            + s.namespace() + ": kubectl -n " + s.namespace() + " create secret docker-registry "
                            + secret + " --docker-server=… --docker-username=… --docker-password=…");
                }
            } catch (KubernetesClientException e) {
                findings.notChecked("Secret " + s.namespace() + "/" + secret + " (" + Reads.reason(e) + ")");
            }
        }
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
