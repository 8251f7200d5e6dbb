package io.kvcacheinjector.app.e2e;

import java.util.Locale;
import java.util.StringJoiner;

/**
 * The objects of NodeE2E's cache cases (docs/how-to/see-the-cache-work.md uses the same names): a real Mooncake pool
 * in the namespace {@code kv} (a multi-tenant master with a quota policy naming both test domains, the part a pool
 * controller plays, and one member contributing a segment), the cluster-scoped {@code KVCacheBackend}/{@code
 * KVCachePool} pointing at the master's Service, Bindings in {@code cache-a} and {@code cache-b} with different
 * domains, and the engine workloads opted in with only the label and annotations.
 *
 * <p>The Services have fixed cluster IPs (tools/e2e/cluster.sh's Service range) because the node's Pods have no
 * working resolver; the engines are given the address the pool's status publishes, as a pool controller would. The
 * addresses lie in the range's lower band (the first 16 of a /24), which the API server keeps for fixed addresses
 * and hands out dynamically only once the rest is used up: an address above it can already belong to a Service
 * created earlier with a random one (a CI run failed with "provided IP is already allocated" for .50).
 */
final class CachePool {
    static final String MOONCAKE = "kvci.local/mooncake:0.3.13.post1";
    static final String VLLM = "kvci.local/vllm-cpu:0.32.0";
    static final String SGLANG = "kvci.local/sglang-cpu:0.5.23";
    static final String MASTER_IP = "198.18.128.14";
    /** A Service that selects no Pod: kube-proxy refuses every connection to it, as to a master that is gone. */
    static final String NOWHERE_IP = "198.18.128.15";
    static final String DOMAIN_A = "cache-a-chat";
    static final String DOMAIN_B = "cache-b-chat";
    static final String MODEL = "/models/tiny-llama";
    /** The prompt's length in tokens: 12 full blocks of 128 and 9 tokens more (hits can cover the full blocks). */
    static final int PROMPT_TOKENS = 1545;

    private CachePool() {
    }

    /** The pool: namespace {@code kv}, the quota policy, the master with its Service, one member. */
    static String pool() {
        return """
                apiVersion: v1
                kind: Namespace
                metadata:
                  name: kv
                ---
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: mc-quota
                  namespace: kv
                data:
                  quota.yaml: |
                    version: 1
                    tenants:
                      - {name: %1$s, quota: 512MB}
                      - {name: %2$s, quota: 512MB}
                ---
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: mc-master
                  namespace: kv
                spec:
                  replicas: 1
                  selector:
                    matchLabels: {app: mc-master}
                  template:
                    metadata:
                      labels: {app: mc-master}
                    spec:
                      terminationGracePeriodSeconds: 2
                      securityContext: {runAsUser: 65532, runAsNonRoot: true}
                      containers:
                        - name: master
                          image: %3$s
                          imagePullPolicy: Never
                          command: [mooncake_master]
                          args:
                            - --rpc_address=$(POD_IP)
                            - --rpc_port=50051
                            - --rpc_thread_num=4
                            - --metrics_host=$(POD_IP)
                            - --metrics_port=9003
                            - --enable_multi_tenants=true
                            - --tenant_quota_connector_type=file
                            - --tenant_quota_connector_uri=/etc/mooncake/quota.yaml
                          env:
                            - name: POD_IP
                              valueFrom: {fieldRef: {fieldPath: status.podIP}}
                          ports:
                            - {name: rpc, containerPort: 50051}
                            - {name: metrics, containerPort: 9003}
                          readinessProbe:
                            tcpSocket: {port: 50051}
                            periodSeconds: 1
                          volumeMounts:
                            - {name: quota, mountPath: /etc/mooncake, readOnly: true}
                      volumes:
                        - name: quota
                          configMap: {name: mc-quota}
                ---
                apiVersion: v1
                kind: Service
                metadata:
                  name: mc-master
                  namespace: kv
                spec:
                  clusterIP: %4$s
                  selector: {app: mc-master}
                  ports:
                    - {name: rpc, port: 50051, targetPort: 50051}
                    - {name: metrics, port: 9003, targetPort: 9003}
                ---
                apiVersion: v1
                kind: Service
                metadata:
                  name: mc-nowhere
                  namespace: kv
                spec:
                  clusterIP: %5$s
                  selector: {app: mc-nowhere}
                  ports:
                    - {name: rpc, port: 50051, targetPort: 50051}
                ---
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: mc-member
                  namespace: kv
                spec:
                  replicas: 1
                  selector:
                    matchLabels: {app: mc-member}
                  template:
                    metadata:
                      labels: {app: mc-member}
                    spec:
                      terminationGracePeriodSeconds: 2
                      securityContext: {runAsUser: 65532, runAsNonRoot: true}
                      containers:
                        - name: member
                          image: %3$s
                          imagePullPolicy: Never
                          command: [mooncake_client]
                          args:
                            - --host=$(POD_IP)
                            - --port=50052
                            - --master_server_address=%4$s:50051
                            - --metadata_server=P2PHANDSHAKE
                            - --protocol=tcp
                            - --device_names=
                            - --global_segment_size=512MB
                            - --local_buffer_size=16MB
                            - --tenant_id=default
                            - --logtostderr
                          env:
                            - name: POD_IP
                              valueFrom: {fieldRef: {fieldPath: status.podIP}}
                """.formatted(DOMAIN_A, DOMAIN_B, MOONCAKE, MASTER_IP, NOWHERE_IP);
    }

    /** The backends and pools (cluster-scoped), the two namespaces and their Bindings. */
    static String poolObjectsAndBindings() {
        return """
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCacheBackend
                metadata:
                  name: mc-node
                spec:
                  transport:
                    protocol: TCP
                  connection:
                    external:
                      endpoints: ["%1$s:50051"]
                ---
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCachePool
                metadata:
                  name: node
                spec:
                  backends: [mc-node]
                ---
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCacheBackend
                metadata:
                  name: mc-nowhere
                spec:
                  transport:
                    protocol: TCP
                  connection:
                    external:
                      endpoints: ["%2$s:50051"]
                ---
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCachePool
                metadata:
                  name: nowhere
                spec:
                  backends: [mc-nowhere]
                ---
                apiVersion: v1
                kind: Namespace
                metadata:
                  name: cache-a
                ---
                apiVersion: v1
                kind: Namespace
                metadata:
                  name: cache-b
                ---
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCachePoolBinding
                metadata:
                  name: chat
                  namespace: cache-a
                spec:
                  poolRef: {name: node}
                  domain: {name: %3$s, dtype: auto}
                ---
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCachePoolBinding
                metadata:
                  name: chat
                  namespace: cache-b
                spec:
                  poolRef: {name: node}
                  domain: {name: %4$s, dtype: auto}
                ---
                apiVersion: worker.gpustack.ai/v1alpha1
                kind: KVCachePoolBinding
                metadata:
                  name: gone
                  namespace: cache-a
                spec:
                  poolRef: {name: nowhere}
                  domain: {name: %3$s, dtype: auto}
                """.formatted(MASTER_IP, NOWHERE_IP, DOMAIN_A, DOMAIN_B);
    }

    /** The status a pool controller would publish for a pool whose master answers at {@code ip}. */
    static String poolStatus(String ip) {
        return """
                {"status": {"clientEndpoint": "%s:50051",
                  "conditions": [{"type": "QuotaLedgerAvailable", "status": "True", "reason": "Available",
                                  "message": "ledger reachable", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}
                """.formatted(ip);
    }

    /**
     * A vLLM Deployment as the seed's example writes it: the opt-in label, the Binding and engine annotations (and
     * {@code role} when not empty); only the image, the model path and the flags a 2-core CPU needs differ. Nothing
     * Mooncake-related is written by hand.
     */
    static String vllmDeployment(String namespace, String name, int replicas, String binding, String role) {
        String roleAnnotation = role.isEmpty() ? "" : "\n        kvcache.gpustack.ai/role: " + role;
        return """
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: %2$s
                  namespace: %1$s
                spec:
                  replicas: %3$d
                  selector:
                    matchLabels: {app: %2$s}
                  template:
                    metadata:
                      labels:
                        app: %2$s
                        kvcache.gpustack.ai/inject: "true"
                      annotations:
                        kvcache.gpustack.ai/binding: %4$s
                        kvcache.gpustack.ai/engine: vLLM%5$s
                    spec:
                      terminationGracePeriodSeconds: 2
                      containers:
                        - name: server
                          image: %6$s
                          imagePullPolicy: Never
                          command:
                            - "vllm"
                          args:
                            - "serve"
                            - "--model"
                            - "%7$s"
                            - "--dtype"
                            - "float32"
                            - "--max-model-len"
                            - "2048"
                            - "--max-num-seqs"
                            - "4"
                            - "--enforce-eager"
                          readinessProbe:
                            httpGet: {path: /health, port: 8000}
                            periodSeconds: 2
                """.formatted(namespace, name, replicas, binding, roleAnnotation, VLLM, MODEL);
    }

    /**
     * An SGLang Pod launched as the contract recognises SGLang; the image's {@code python3 -m sglang.launch_server}
     * runs SGLang's own Mooncake reader and a real store client (tools/e2e/cache-images/sglang-probe.py), which
     * puts or gets one page ({@code action}) and prints {@code sglang-probe: {json}}.
     */
    static String sglangPod(String namespace, String name, String action) {
        return """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: %2$s
                  namespace: %1$s
                  labels:
                    kvcache.gpustack.ai/inject: "true"
                  annotations:
                    kvcache.gpustack.ai/binding: chat
                    kvcache.gpustack.ai/engine: SGLang
                spec:
                  terminationGracePeriodSeconds: 1
                  restartPolicy: Never
                  containers:
                    - name: server
                      image: %3$s
                      imagePullPolicy: Never
                      command: ["python3", "-m", "sglang.launch_server"]
                      args: ["--model-path", "%4$s"]
                      env:
                        - {name: KVCI_PAGE_ACTION, value: %5$s}
                """.formatted(namespace, name, SGLANG, MODEL, action);
    }

    /** The prompt as token ids (none of the tokenizer's three special ids), so its length is exact. */
    static String completionRequest() {
        StringJoiner ids = new StringJoiner(",", "[", "]");
        for (int i = 0; i < PROMPT_TOKENS; i++) {
            ids.add(Integer.toString(3 + (i * 37 + i / 7) % 1000));
        }
        return String.format(Locale.ROOT, "{\"model\":\"%s\",\"prompt\":%s,\"max_tokens\":8,\"temperature\":0}",
                MODEL, ids);
    }
}
