package io.kvcacheinjector.adapters.k8s.model;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;
import java.util.Map;

/** {@code worker.gpustack.ai/v1alpha1} {@code KVCacheBackend} (cluster-scoped): a Mooncake store and its transport. */
@Group("worker.gpustack.ai")
@Version("v1alpha1")
@Kind("KVCacheBackend")
@Plural("kvcachebackends")
@Singular("kvcachebackend")
@ShortNames("kvcb")
public class KVCacheBackendResource extends CustomResource<KVCacheBackendResource.Spec, KVCacheBackendResource.Status> {

    /** {@code spec}: the backend-wide transport and the managed member groups are read. */
    public static class Spec extends OpenObject {
        public Transport transport;
        public Connection connection;
    }

    /** {@code transport}: {@code protocol} is one of {@code Auto TCP RDMA EFA CANN ROCM MUSA MACA}. */
    public static class Transport extends OpenObject {
        public String protocol;
        public String deviceResourceName;
    }

    /** {@code spec.connection}: exactly one of {@code managed} and {@code external}. */
    public static class Connection extends OpenObject {
        public Managed managed;
        public Map<String, Object> external;
    }

    /** {@code spec.connection.managed}: 1–32 member groups. */
    public static class Managed extends OpenObject {
        public List<MemberGroup> members;
    }

    /** One member group; its {@code transport.protocol}, when set, overrides the backend-wide one. */
    public static class MemberGroup extends OpenObject {
        public Transport transport;
        public Map<String, String> nodeSelector;
        public String medium;
        public Object capacityPerMember;
    }

    /** {@code status}: not read by the webhook; kept as written. */
    public static class Status extends OpenObject {
    }
}
