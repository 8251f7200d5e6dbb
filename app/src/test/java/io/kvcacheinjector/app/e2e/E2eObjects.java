package io.kvcacheinjector.app.e2e;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * The objects the suite creates: the README's example cluster (Binding {@code chat} → pool {@code shared} → backend
 * {@code mc} on RDMA; Binding {@code npu} → pool {@code npu} → backend {@code npu} on CANN) and the Pods, written as
 * YAML the way a user writes them.
 */
final class E2eObjects {
    static final String NAMESPACE = "team-a";
    static final String RELEASE = "kvi";
    static final String RELEASE_NAMESPACE = "kvcache-system";
    static final String SETTINGS_NAMESPACE = "gpustack-system";
    static final String FULLNAME = RELEASE + "-kvcache-injector";
    static final String INJECT_WEBHOOK = "inject.kvcache.kvcache-injector.io";
    static final String FREEZE_WEBHOOK = "freeze.kvcache.kvcache-injector.io";
    static final String CACHEBLEND_WEBHOOK = "inject.cacheblend.kvcache-injector.io";
    static final String LABEL = "kvcache.gpustack.ai/inject";
    static final String INJECTED = "kvcache.gpustack.ai/injected";
    static final String CLIENT_CONFIG = "kvcache.gpustack.ai/client-config";
    static final String HOLD = "e2e.kvcache-injector.io/hold";

    private static final KubernetesSerialization YAML = new KubernetesSerialization();

    private E2eObjects() {
    }

    static GenericKubernetesResource binding(String name, String pool, String domain, boolean held) {
        return resource("""
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCachePoolBinding
                metadata:
                  name: %s
                  namespace: %s
                  finalizers: %s
                spec:
                  poolRef: {name: %s}
                  domain: {name: %s, dtype: bfloat16}
                """.formatted(name, NAMESPACE, held ? "[" + HOLD + "]" : "[]", pool, domain));
    }

    /** A pool whose ledger is available; the status is written through the status subresource. */
    static GenericKubernetesResource pool(String name, String backend, String endpoint) {
        return resource("""
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCachePool
                metadata:
                  name: %s
                spec:
                  backends: [%s]
                status:
                  clientEndpoint: %s
                  conditions:
                    - type: QuotaLedgerAvailable
                      status: "True"
                      reason: Available
                      message: ""
                      lastTransitionTime: "2026-01-01T00:00:00Z"
                """.formatted(name, backend, endpoint));
    }

    static GenericKubernetesResource rdmaBackend() {
        return resource("""
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCacheBackend
                metadata:
                  name: mc
                spec:
                  transport:
                    protocol: RDMA
                  connection:
                    managed:
                      members:
                        - name: dram-a
                          medium: DRAM
                        - name: dram-b
                          medium: DRAM
                """);
    }

    static GenericKubernetesResource cannBackend() {
        return resource("""
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCacheBackend
                metadata:
                  name: npu
                spec:
                  transport:
                    protocol: CANN
                  connection:
                    external:
                      endpoints: ["npu-leader.kv.svc:50051"]
                """);
    }

    /** A vLLM Pod, decode role, launched as {@code vllm serve}, opted in to Binding {@code binding}. */
    static Pod vllm(String name, String namespace, String binding) {
        return pod("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s
                  labels:
                    kvcache.gpustack.ai/inject: "true"
                  annotations:
                    kvcache.gpustack.ai/binding: %s
                    kvcache.gpustack.ai/engine: vLLM
                    kvcache.gpustack.ai/role: Decode
                spec:
                  containers:
                    - name: server
                      image: vllm/vllm-openai:v0.29.0
                      command: ["vllm"]
                      args: ["serve", "--model", "Qwen/Qwen3-8B"]
                      resources:
                        requests: {memory: 16Gi}
                        limits: {memory: 16Gi}
                """.formatted(name, namespace, binding));
    }

    static Pod vllmAscend(String name) {
        return pod("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s
                  labels:
                    kvcache.gpustack.ai/inject: "true"
                  annotations:
                    kvcache.gpustack.ai/binding: npu
                    kvcache.gpustack.ai/engine: vLLM
                    kvcache.gpustack.ai/manufacturer: ascend
                spec:
                  containers:
                    - name: server
                      image: quay.io/ascend/vllm-ascend:v0.19.1rc1
                      command: ["vllm"]
                      args: ["serve", "--model", "Qwen/Qwen3-8B"]
                """.formatted(name, NAMESPACE));
    }

    static Pod sglang(String name) {
        return pod("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s
                  labels:
                    kvcache.gpustack.ai/inject: "true"
                  annotations:
                    kvcache.gpustack.ai/binding: chat
                    kvcache.gpustack.ai/engine: SGLang
                spec:
                  containers:
                    - name: server
                      image: lmsysorg/sglang:v0.5.18
                      command: ["python3", "-m", "sglang.launch_server"]
                      args: ["--model-path", "Qwen/Qwen3-8B"]
                      env:
                        - name: HF_HOME
                          value: /cache
                """.formatted(name, NAMESPACE));
    }

    /** Refused: the appended flags would become the shell's {@code $0}. */
    static Pod shellWrapped(String name) {
        return pod("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s
                  labels:
                    kvcache.gpustack.ai/inject: "true"
                  annotations:
                    kvcache.gpustack.ai/binding: chat
                    kvcache.gpustack.ai/engine: vLLM
                spec:
                  containers:
                    - name: server
                      image: vllm/vllm-openai:v0.29.0
                      command: ["sh", "-c", "vllm serve --model Qwen/Qwen3-8B"]
                """.formatted(name, NAMESPACE));
    }

    /** The kvcache annotations without the opt-in label. */
    static Pod notOptedIn(String name) {
        return pod("""
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %s
                  namespace: %s
                  annotations:
                    kvcache.gpustack.ai/binding: chat
                    kvcache.gpustack.ai/engine: vLLM
                spec:
                  containers:
                    - name: server
                      image: vllm/vllm-openai:v0.29.0
                      command: ["vllm"]
                      args: ["serve", "--model", "Qwen/Qwen3-8B"]
                """.formatted(name, NAMESPACE));
    }

    static GenericKubernetesResource resource(String yaml) {
        return YAML.unmarshal(yaml, GenericKubernetesResource.class);
    }

    static Pod pod(String yaml) {
        return YAML.unmarshal(yaml, Pod.class);
    }
}
