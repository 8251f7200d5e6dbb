package io.kvcacheinjector.adapters.k8s.model;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** {@code worker.gpustack.ai/v1alpha1} {@code KVCachePoolBinding}: binds a namespace's Pods to a pool and a domain. */
@Group("worker.gpustack.ai")
@Version("v1alpha1")
@Kind("KVCachePoolBinding")
@Plural("kvcachepoolbindings")
@Singular("kvcachepoolbinding")
@ShortNames("kvcpb")
public class KVCachePoolBindingResource
        extends CustomResource<KVCachePoolBindingResource.Spec, KVCachePoolBindingResource.Status> implements Namespaced {

    /** {@code spec}: {@code poolRef.name}, {@code domain.name}, {@code domain.dtype} are read; the rest is kept. */
    public static class Spec extends OpenObject {
        public NameReference poolRef;
        public Domain domain;
    }

    /** {@code spec.poolRef}: a cluster-scoped pool, by name only. */
    public static class NameReference extends OpenObject {
        public String name;
    }

    /** {@code spec.domain}: the reuse domain (absent or empty name means {@code default}) and its KV-cache dtype. */
    public static class Domain extends OpenObject {
        public String name;
        public String dtype;
        public Integer blockSize;
    }

    /** {@code status}: not read by the webhook; kept as written. */
    public static class Status extends OpenObject {
    }
}
