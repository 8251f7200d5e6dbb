package io.kvcacheinjector.adapters.k8s.reconcile;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.kvcacheinjector.ports.out.EngineChildrenPort;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link EngineChildrenPort} on fabric8: children are written by server-side apply as generic objects (exactly the
 * rendered fields, nothing a typed model would add), with the field manager {@link #FIELD_MANAGER} and conflicts
 * forced, so every field the controller sets is owned by it alone and a hand edit is taken back.
 */
public final class Fabric8EngineChildren implements EngineChildrenPort {
    /** The one field manager of every write the controller makes (children and engine status). */
    public static final String FIELD_MANAGER = "kvcache-injector";

    private static final ObjectMapper JSON = new ObjectMapper();
    private final KubernetesClient client;

    public Fabric8EngineChildren(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    @Override
    public boolean serviceMonitorServed() {
        try {
            APIResourceList list = client.getApiResources("monitoring.coreos.com/v1");
            return list != null && list.getResources() != null
                    && list.getResources().stream().anyMatch(r -> "ServiceMonitor".equals(r.getKind()));
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public Optional<Map<String, String>> secretData(String namespace, String name) {
        Secret s = client.secrets().inNamespace(namespace).withName(name).get();
        if (s == null) {
            return Optional.empty();
        }
        Map<String, String> data = new LinkedHashMap<>(s.getData() == null ? Map.of() : s.getData());
        if (s.getStringData() != null) {
            s.getStringData().forEach((k, v) -> data.putIfAbsent(k, java.util.Base64.getEncoder()
                    .encodeToString(v.getBytes(java.nio.charset.StandardCharsets.UTF_8))));
        }
        return Optional.of(data);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Map<String, Object> apply(Map<String, Object> child) {
        GenericKubernetesResource resource = JSON.convertValue(child, GenericKubernetesResource.class);
        GenericKubernetesResource stored = client.genericKubernetesResources(resource.getApiVersion(), resource.getKind())
                .inNamespace(resource.getMetadata().getNamespace())
                .resource(resource)
                .fieldManager(FIELD_MANAGER)
                .forceConflicts()
                .serverSideApply();
        return Serialization.jsonMapper().convertValue(stored, Map.class);
    }
}
