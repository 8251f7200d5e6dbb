package io.kvcacheinjector.app.check;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import io.kvcacheinjector.domain.cacheblend.CacheBlendKeys;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The engines' side of {@code check}: each CacheBlendEngine in scope or named by a workload in scope, for its connection
 * ConfigMap and {@code ConfigValid} condition ({@code engine-not-reconciled}) and its image tags
 * ({@code images-mismatched}).
 */
final class EngineChecks {
    private final KubernetesClient client;
    private final Optional<String> namespace;
    private final Findings findings;

    EngineChecks(KubernetesClient client, Optional<String> namespace, Findings findings) {
        this.client = client;
        this.namespace = namespace;
        this.findings = findings;
    }


    void checkEngines(Set<String> enginesToCheck) {
        var resources = client.genericKubernetesResources(
                LiveClusterDirectory.context(ClusterKind.CACHE_BLEND_ENGINE));
        Map<String, GenericKubernetesResource> engines = new LinkedHashMap<>();
        try {
            for (GenericKubernetesResource e : Reads.listInScope(resources, namespace)) {
                engines.put(e.getMetadata().getNamespace() + "/" + e.getMetadata().getName(), e);
            }
        } catch (KubernetesClientException e) {
            findings.notChecked("CacheBlendEngines in " + Reads.scope(namespace) + " (" + Reads.reason(e) + ")");
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
                    findings.notChecked("CacheBlendEngine " + ref + " (" + Reads.reason(e) + ")");
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
                findings.add(FindingCode.ENGINE_NOT_RECONCILED, object, object + " has no ConfigMap " + ns + "/" + configMap
                        + ", so the CacheBlend webhook skips every Pod that names it (connection-missing)",
                        "check that the engine's operator runs; if it does, read the engine's ConfigValid condition"
                                + " and correct its spec");
            }
        } catch (KubernetesClientException ex) {
            findings.notChecked("ConfigMap " + ns + "/" + configMap + " (" + Reads.reason(ex) + ")");
        }
        Map<String, Object> tree = client.getKubernetesSerialization().convertValue(e, Map.class);
        if (tree.get("status") instanceof Map<?, ?> status && status.get("conditions") instanceof List<?> conditions) {
            for (Object c : conditions) {
                if (c instanceof Map<?, ?> m && "ConfigValid".equals(m.get("type")) && "False".equals(m.get("status"))) {
                    findings.add(FindingCode.ENGINE_NOT_RECONCILED, object, object + " reports ConfigValid=False ("
                            + m.get("reason") + ": " + m.get("message") + "), so its operator does not reconcile it",
                            "correct the engine's spec as the condition says");
                }
            }
        }
        Map<String, Object> spec = tree.get("spec") instanceof Map<?, ?> s ? (Map<String, Object>) s : Map.of();
        String engineTag = text(spec, "image", "tag");
        String payloadTag = text(spec, "injection", "payloadImage", "tag");
        if (engineTag != null && payloadTag != null && !engineTag.equals(payloadTag)) {
            findings.add(FindingCode.IMAGES_MISMATCHED, object, object + " runs engine image tag \"" + engineTag
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

}
