package io.kvcacheinjector.adapters.k8s.model;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;

/** {@code worker.gpustack.ai/v1alpha1} {@code KVCachePool} (cluster-scoped): a grant on one backend. */
@Group("worker.gpustack.ai")
@Version("v1alpha1")
@Kind("KVCachePool")
@Plural("kvcachepools")
@Singular("kvcachepool")
@ShortNames("kvcp")
public class KVCachePoolResource extends CustomResource<KVCachePoolResource.Spec, KVCachePoolResource.Status> {

    /** {@code spec}: {@code backends} is read ({@code [0]} is the backend); the quota and the rest are kept. */
    public static class Spec extends OpenObject {
        public List<String> backends;
    }

    /** {@code status}: {@code clientEndpoint} and the {@code QuotaLedgerAvailable} condition are read. */
    public static class Status extends OpenObject {
        public String clientEndpoint;
        public List<Condition> conditions;
    }
}
