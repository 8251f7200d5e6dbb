package io.kvcacheinjector.adapters.k8s.model;

import java.util.Arrays;
import java.util.Optional;

/**
 * The kinds the cluster view reads, with where the API server serves them. Used by the file-backed directory to
 * recognise objects in manifests and by the informers to address them.
 */
public enum ClusterKind {
    KV_CACHE_POOL_BINDING("worker.gpustack.ai", "v1alpha1", "KVCachePoolBinding", "kvcachepoolbindings", true),
    KV_CACHE_POOL("worker.gpustack.ai", "v1alpha1", "KVCachePool", "kvcachepools", false),
    KV_CACHE_BACKEND("worker.gpustack.ai", "v1alpha1", "KVCacheBackend", "kvcachebackends", false),
    CACHE_BLEND_ENGINE("lmcache.lmcache.ai", "v1alpha1", "CacheBlendEngine", "cacheblendengines", true),
    CONFIG_MAP("", "v1", "ConfigMap", "configmaps", true),
    SECRET("", "v1", "Secret", "secrets", true),
    /** Read by the informers only (the Pod Security level for a CacheBlend warning), never from files. */
    NAMESPACE("", "v1", "Namespace", "namespaces", false);

    private final String group;
    private final String version;
    private final String kind;
    private final String plural;
    private final boolean namespaced;

    ClusterKind(String group, String version, String kind, String plural, boolean namespaced) {
        this.group = group;
        this.version = version;
        this.kind = kind;
        this.plural = plural;
        this.namespaced = namespaced;
    }

    /** The API group; empty for the core group. */
    public String group() {
        return group;
    }

    public String version() {
        return version;
    }

    /** The {@code kind} as written in manifests. */
    public String kind() {
        return kind;
    }

    public String plural() {
        return plural;
    }

    public boolean namespaced() {
        return namespaced;
    }

    /** The {@code apiVersion} this view reads, e.g. {@code worker.gpustack.ai/v1alpha1} or {@code v1}. */
    public String apiVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    /**
     * Whether {@code apiVersion} names this kind's group (any version: upstream also serves a {@code v1} view of
     * the Binding with the same schema).
     */
    public boolean groupMatches(String apiVersion) {
        int slash = apiVersion.indexOf('/');
        String g = slash < 0 ? "" : apiVersion.substring(0, slash);
        return g.equals(group) && slash < apiVersion.length() - 1 && !apiVersion.isEmpty();
    }

    /** The kind with this exact {@code kind} name (case-sensitive, as the API server compares it). */
    public static Optional<ClusterKind> ofKind(String kind) {
        return Arrays.stream(values()).filter(k -> k.kind.equals(kind)).findFirst();
    }
}
