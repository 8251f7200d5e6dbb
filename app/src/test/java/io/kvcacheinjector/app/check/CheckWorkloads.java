package io.kvcacheinjector.app.check;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The workloads and objects {@code check}'s tests seed, the same against fabric8's mock server
 * ({@code ClusterCheckTest}) and against the real API server ({@code CheckE2E}).
 */
public final class CheckWorkloads {
    private static final KubernetesSerialization YAML = new KubernetesSerialization();

    private CheckWorkloads() {
    }

    /** A vLLM Pod template opted in to {@code binding}, with one more annotation line (or none) and {@code args}. */
    public static String kvcacheTemplate(String binding, String annotation, String args) {
        return """
                metadata:
                  labels: {app: chat, kvcache.gpustack.ai/inject: "true"}
                  annotations:
                    kvcache.gpustack.ai/binding: %s
                    kvcache.gpustack.ai/engine: vLLM
                    %s
                spec:
                  containers:
                    - name: server
                      image: vllm/vllm-openai:v0.29.0
                      command: ["vllm"]
                      args: %s
                """.formatted(binding, annotation, args);
    }

    /** A CacheBlend Pod template on {@code engine}, with one more annotation line (or none). */
    public static String cacheBlendTemplate(String engine, String annotation) {
        return """
                metadata:
                  labels: {app: blend, lmcache.ai/cacheblend-inject: "true"}
                  annotations:
                    lmcache.ai/cacheblend-engine: %s
                    %s
                spec:
                  containers:
                    - name: vllm
                      image: lmcache/vllm-openai:v0.5.3
                      args: ["Qwen/Qwen3-8B", "--max-model-len", "32768"]
                """.formatted(engine, annotation);
    }

    /** A Deployment of one replica named {@code name} (also its {@code app} label) with {@code template}. */
    public static HasMetadata deployment(String namespace, String name, String template) {
        return YAML.unmarshal("""
                apiVersion: apps/v1
                kind: Deployment
                metadata: {name: %s, namespace: %s}
                spec:
                  replicas: 1
                  selector: {matchLabels: {app: %s}}
                  template:
                %s""".formatted(name, namespace, name, template.indent(4)), HasMetadata.class);
    }

    /** The connection ConfigMap a reconciled CacheBlendEngine {@code engine} has. */
    public static HasMetadata connection(String namespace, String engine) {
        return YAML.unmarshal("""
                apiVersion: v1
                kind: ConfigMap
                metadata: {name: %s-connection, namespace: %s}
                data:
                  kv-transfer-config.json: '{"kv_connector": "CBKVConnector", "kv_role": "kv_both"}'
                """.formatted(engine, namespace), HasMetadata.class);
    }

    /** A pull Secret {@code name} (an empty docker config). */
    public static HasMetadata pullSecret(String namespace, String name) {
        return YAML.unmarshal("""
                apiVersion: v1
                kind: Secret
                metadata: {name: %s, namespace: %s}
                type: kubernetes.io/dockerconfigjson
                data:
                  .dockerconfigjson: %s
                """.formatted(name, namespace, Base64.getEncoder().encodeToString("{\"auths\":{}}"
                .getBytes(StandardCharsets.UTF_8))), HasMetadata.class);
    }
}
