package io.kvcacheinjector.app.check;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import io.kvcacheinjector.domain.cluster.ClusterObjects;
import io.kvcacheinjector.domain.cluster.Condition;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The tenants' side of {@code check} ({@code domain-not-registered}): every KVCachePoolBinding in scope whose reuse
 * domain its pool does not name in {@code status.domains[]} while the pool's {@code QuotaLedgerAvailable} is
 * {@code True}. The pool controller publishes in that list the domains it renders into the master's quota policy; a
 * domain missing from it is one the master does not know, so every put of a Pod bound to it fails with
 * {@code TENANT_NOT_REGISTERED} while the engine starts normally. A pool that publishes no list gets no finding:
 * nothing can be compared. Admission reads none of this (docs/explanation/decisions.md).
 */
final class TenantChecks {
    private final KubernetesClient client;
    private final LiveClusterDirectory directory;
    private final Optional<String> namespace;
    private final Findings findings;

    TenantChecks(KubernetesClient client, LiveClusterDirectory directory, Optional<String> namespace,
                 Findings findings) {
        this.client = client;
        this.directory = directory;
        this.namespace = namespace;
        this.findings = findings;
    }

    /** Lists the Bindings in scope and reads each pool they name once. */
    void checkBindings() {
        var resources = client.genericKubernetesResources(
                LiveClusterDirectory.context(ClusterKind.KV_CACHE_POOL_BINDING));
        List<GenericKubernetesResource> bindings;
        try {
            bindings = Reads.listInScope(resources, namespace);
        } catch (KubernetesClientException e) {
            if (!Reads.notFound(e)) { // a kind not served is crd-missing already
                findings.notChecked("KVCachePoolBindings in " + Reads.scope(namespace) + " (" + Reads.reason(e)
                        + ")");
            }
            return;
        }
        Map<String, Optional<Map<String, Object>>> pools = new HashMap<>();
        for (GenericKubernetesResource raw : bindings) {
            KvCachePoolBinding binding = ClusterObjects.binding(tree(raw), raw.getMetadata().getNamespace());
            if (binding.poolName().isEmpty()) {
                continue;
            }
            String poolName = binding.poolName().get();
            Optional<Map<String, Object>> pool = pools.computeIfAbsent(poolName, this::pool);
            pool.flatMap(p -> unregisteredDomain(binding, p)).ifPresent(f ->
                    findings.add(f.code(), f.object(), f.message(), f.fix()));
        }
    }

    private Optional<Map<String, Object>> pool(String name) {
        try {
            return directory.raw(ClusterKind.KV_CACHE_POOL, "", name).map(this::tree);
        } catch (KubernetesClientException e) {
            findings.notChecked("KVCachePool " + name + " (" + Reads.reason(e) + ")");
            return Optional.empty();
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> tree(GenericKubernetesResource raw) {
        return client.getKubernetesSerialization().convertValue(raw, Map.class);
    }

    /**
     * The finding for one Binding, given its pool as a JSON tree: present only when the Binding is not terminating,
     * the pool's {@code QuotaLedgerAvailable} is {@code True}, the pool publishes {@code status.domains[]}, and no
     * entry of it is named as the Binding's domain (after D11: an empty {@code spec.domain.name} is {@code default}).
     */
    static Optional<Finding> unregisteredDomain(KvCachePoolBinding binding, Map<String, Object> poolTree) {
        KvCachePool pool = ClusterObjects.pool(poolTree);
        boolean ledger = pool.quotaLedger().map(Condition::status).filter("True"::equals).isPresent();
        Optional<Set<String>> published = publishedDomains(poolTree);
        if (binding.terminating() || !ledger || published.isEmpty()
                || published.get().contains(binding.domain())) {
            return Optional.empty();
        }
        String object = "KVCachePoolBinding " + binding.namespace() + "/" + binding.name();
        String domain = binding.domain();
        boolean implicit = binding.domainName() == null || binding.domainName().isEmpty();
        String message = object + " names the reuse domain \"" + domain + "\""
                + (implicit ? " (its spec.domain.name is empty, so the webhook writes the tenant \"default\")" : "")
                + ", which KVCachePool " + pool.name() + " does not list in status.domains[] ("
                + (published.get().isEmpty() ? "an empty list" : "it lists " + String.join(", ",
                published.get().stream().map(d -> "\"" + d + "\"").toList())) + ") while its QuotaLedgerAvailable is"
                + " True: the pool controller has not registered the domain in the master's quota policy, so a Pod"
                + " bound to " + object
                + " is admitted with the tenant \"" + domain + "\", starts normally and caches nothing";
        String fix = "wait for the pool controller to register the domain, or check the master's quota policy; until"
                + " then every put fails with TENANT_NOT_REGISTERED"
                + (implicit ? "; the pool controller registers only a named domain, so give " + object
                + " a spec.domain.name" : "");
        return Optional.of(new Finding(FindingCode.DOMAIN_NOT_REGISTERED, object, message, fix));
    }

    /** The names in {@code status.domains[]}, in order; empty when the pool publishes no such list. */
    static Optional<Set<String>> publishedDomains(Map<String, Object> poolTree) {
        if (!(poolTree.get("status") instanceof Map<?, ?> status) || !(status.get("domains") instanceof List<?> list)) {
            return Optional.empty();
        }
        Set<String> names = new LinkedHashSet<>();
        for (Object entry : list) {
            if (entry instanceof Map<?, ?> m && m.get("name") instanceof String name && !name.isEmpty()) {
                names.add(name);
            }
        }
        return Optional.of(names);
    }
}
