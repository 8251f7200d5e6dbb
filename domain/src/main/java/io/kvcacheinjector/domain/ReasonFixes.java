package io.kvcacheinjector.domain;

import java.util.EnumMap;
import java.util.Map;

/**
 * The fix of every {@link ReasonCode}, as the catalogue gives it: what the Pod's author (or the cluster's operator)
 * does about it. The refusal-code table of docs/reference/refusal-codes.md shows it in its Fix column, and
 * docs/how-to/troubleshooting.md lists it by code; a message's own fix is more precise, naming the objects involved.
 */
final class ReasonFixes {
    private static final Map<ReasonCode, String> FIXES = fixes();

    private ReasonFixes() {
    }

    static String of(ReasonCode code) {
        String fix = FIXES.get(code);
        if (fix == null) {
            throw new IllegalStateException("no fix for " + code.id() + " in ReasonFixes");
        }
        return fix;
    }

    private static Map<ReasonCode, String> fixes() {
        Map<ReasonCode, String> m = new EnumMap<>(ReasonCode.class);
        m.put(ReasonCode.CONTRACTS_CONFLICT,
                "Remove one of the two labels where the Pod is defined.");
        m.put(ReasonCode.POD_UNREADABLE,
                "Correct the Pod's definition so that every field has its Kubernetes type; the API server never sends such a Pod, so look at the client that sent it.");
        m.put(ReasonCode.ANNOTATION_RESERVED,
                "Remove it. A manifest exported from a running Pod carries both keys and must be cleaned before it is reused.");
        m.put(ReasonCode.ANNOTATION_UNKNOWN,
                "Correct the key (usually a typo or a case slip), or remove it.");
        m.put(ReasonCode.ANNOTATION_DOMAIN,
                "Remove it. A namespace that needs a second domain needs a second Binding, and the Pod names that Binding.");
        m.put(ReasonCode.ENGINE_INVALID,
                "Set `vLLM` or `SGLang`. For vLLM-Ascend, set `engine: vLLM` and `manufacturer: ascend`.");
        m.put(ReasonCode.MANUFACTURER_INVALID,
                "Remove it. For vLLM-Ascend, set it to `ascend` together with `engine: vLLM`.");
        m.put(ReasonCode.ROLE_INVALID,
                "Leave the annotation off for a plain server. `Server` is the `ModelDeployment` spelling, not this annotation's. Otherwise, set `Prefill` or `Decode`.");
        m.put(ReasonCode.FORWARDING_INVALID,
                "Set `\"true\"` if the launch really passes appended arguments on to the engine. Otherwise, remove the annotation.");
        m.put(ReasonCode.BINDING_MISSING,
                "Set it to the name of a `KVCachePoolBinding` in the Pod's namespace.");
        m.put(ReasonCode.BINDING_CROSS_NAMESPACE,
                "Use the plain name of a Binding in this namespace. To reach a pool from here, create a Binding here.");
        m.put(ReasonCode.CLUSTER_NOT_READY,
                "Retry. A workload controller retries by itself; a bare Pod must be created again. If the refusal persists, check the webhook's readiness and its read permissions.");
        m.put(ReasonCode.BINDING_NOT_FOUND,
                "Create the Binding, or correct the name.");
        m.put(ReasonCode.BINDING_TERMINATING,
                "Wait for the deletion to finish and create a new Binding, or name a Binding that is not being deleted.");
        m.put(ReasonCode.POOL_NOT_FOUND,
                "Correct `poolRef` on the Binding, or create the pool.");
        m.put(ReasonCode.LEDGER_NOT_READY,
                "If the condition is absent or `Unknown`, wait until the pool reports it. If it is `False`, repair what the reason names: `LedgerUnreachable` means the master could not be reached, so restore the master.");
        m.put(ReasonCode.BACKEND_NOT_FOUND,
                "Set `spec.backends` on the pool, or create the backend it names.");
        m.put(ReasonCode.ENDPOINT_NOT_PUBLISHED,
                "Wait for the pool to publish its client endpoint. If it stays empty, check the pool's and the backend's status.");
        m.put(ReasonCode.TRANSPORT_MIXED,
                "Give the backend's `spec.transport.protocol` and every overriding group's `transport.protocol` one common value, or bind to a pool that offers a single transport.");
        m.put(ReasonCode.TRANSPORT_UNSUPPORTED,
                "Set that API value on the backend's `spec.transport.protocol`, or on one member group's `transport.protocol`. An unset protocol is `Auto`, which resolves to `tcp`. Or bind to a pool that offers the required transport.");
        m.put(ReasonCode.CONTAINER_AMBIGUOUS,
                "Set `kvcache.gpustack.ai/container` to the container that runs the engine.");
        m.put(ReasonCode.CONTAINER_IS_INIT,
                "Name an app container.");
        m.put(ReasonCode.CONTAINER_NOT_FOUND,
                "Correct the name.");
        m.put(ReasonCode.KEY_OWNED,
                "Remove the key from the container. If the container manages its own cache, drop the inject label instead.");
        m.put(ReasonCode.DTYPE_OWNED,
                "Remove the flag and name a Binding that declares the dtype you want. Alternatively, turn the Setting off, which keeps the container's own flag.");
        m.put(ReasonCode.OFFLOADING_OVERRIDES_CONNECTOR,
                "Remove the flag: node-local offloading and the shared pool are alternatives. To keep offloading, drop the inject label.");
        m.put(ReasonCode.VOLUME_OWNED,
                "Rename your volume, or move your mount.");
        m.put(ReasonCode.CONFIG_SOURCE,
                "Remove the key. The store settings come from the Binding.");
        m.put(ReasonCode.EXTERNAL_LINKER_CONFLICT,
                "Remove the flag to use the Binding's pool through the hierarchical cache. To keep the linker, drop the inject label and configure its store yourself.");
        m.put(ReasonCode.LAUNCH_NO_COMMAND,
                "Put the engine executable in `command` and the image's launch arguments in `args`. This also replaces the image `ENTRYPOINT`, so `command` must start the engine itself.");
        m.put(ReasonCode.LAUNCH_ARGS_WITHOUT_COMMAND,
                "Put the engine executable in `command`. Declare forwarding only if the `ENTRYPOINT` passes appended arguments on to the engine.");
        m.put(ReasonCode.LAUNCH_HIDDEN_COMMAND_LINE,
                "Launch the engine directly, or put the connector flag inside that argument. Declare forwarding only if the launch passes appended arguments on.");
        m.put(ReasonCode.LAUNCH_SHELL_C,
                "Launch the engine directly (its executable in `command`, its arguments in `args`), or write the connector flag into the script yourself.");
        m.put(ReasonCode.LAUNCH_SCRIPT,
                "Launch the engine directly, or add the connector flag inside the script. Declare forwarding only if the script passes `\"$@\"` to the engine.");
        m.put(ReasonCode.LAUNCH_NO_PROGRAM,
                "Put the engine and its arguments after the launcher, or put them in `command` and `args` directly.");
        m.put(ReasonCode.LAUNCH_ENGINE_MISMATCH,
                "Correct the `engine` or `manufacturer` annotation, or launch the declared engine.");
        m.put(ReasonCode.LAUNCH_UNRECOGNISED,
                "Launch the engine directly. Declare forwarding only if this launcher passes appended arguments on to the engine.");
        m.put(ReasonCode.WARN_CONFIG_FILE,
                "Keep the keys this webhook writes (connector, dtype, offloading, SGLang storage flags) out of that file. On vLLM, its dotted keys are applied after the injected flag.");
        m.put(ReasonCode.WARN_ENVFROM,
                "Declare Mooncake variables in `env`. Injected variables override the same names from `envFrom`, and config-source keys there are not checked.");
        m.put(ReasonCode.WARN_NO_TENANT,
                "Nothing, if one shared store is intended. Otherwise, enable tenant separation on the pool's backend and replace the Pod.");
        m.put(ReasonCode.WARN_TENANT_UNREAD,
                "Run an engine release that reads the tenant, or register the domain default on the pool if sharing it is intended, and replace the Pod.");
        m.put(ReasonCode.FROZEN_LABEL,
                "Change the label where the Pod is defined, and let the Pod be replaced.");
        m.put(ReasonCode.FROZEN_RECORD,
                "Change the kvcache annotations where the Pod is defined, and let the Pod be replaced.");
        m.put(ReasonCode.FROZEN_CLIENT_CONFIG,
                "Change the Binding, or the Pod's definition, and let the Pod be replaced.");
        m.put(ReasonCode.ENGINE_REF_INVALID,
                "Set it to `<namespace>/<name>` of a `CacheBlendEngine`. A bare name means the Pod's namespace.");
        m.put(ReasonCode.ENGINE_REF_FORBIDDEN,
                "Use an engine in the Pod's namespace or in an allowed namespace, or ask the cluster administrator to allow that namespace.");
        m.put(ReasonCode.PD_ROLE_INVALID,
                "Set `prefiller`, `decoder`, or remove the annotation.");
        m.put(ReasonCode.ENGINE_NOT_FOUND,
                "Correct the reference (a shared engine usually needs its namespace in front), or create the engine.");
        m.put(ReasonCode.CONNECTION_MISSING,
                "Wait for the engine to reconcile. If it does not, read the engine's `ConfigValid` condition and correct its spec.");
        m.put(ReasonCode.CONNECTION_INVALID,
                "Let the engine's operator rewrite the ConfigMap (it reverts hand edits). If the problem persists, check the operator and engine versions.");
        m.put(ReasonCode.LOOKUP_FAILED,
                "Check the webhook's RBAC and its connection to the API server; the Pod can be recreated once it is healthy.");
        m.put(ReasonCode.TARGET_CONTAINER_NOT_FOUND,
                "Name an existing container in the annotation or on the engine.");
        m.put(ReasonCode.LAUNCH_UNPROVEN,
                "Start `vllm` directly in `command`, or drop `command` and let the image `ENTRYPOINT` start vLLM with your `args`.");
        m.put(ReasonCode.KV_TRANSFER_CONFIG_PRESENT,
                "Remove the flag (CacheBlend supplies its own connector), or drop the CacheBlend label.");
        m.put(ReasonCode.PLUGIN_NAME_TAKEN,
                "Rename the Pod's container or volume, or move its mount, that uses the name or path CacheBlend writes (`cb-plugin-stage`, `/cb-plugin`, `lmcache-dev-shm`).");
        m.put(ReasonCode.PAYLOAD_IMAGE_UNSET,
                "Set the payload image on the engine (Helm value `cacheBlend.spec.injection.payloadImage`).");
        m.put(ReasonCode.WARN_OVERRIDDEN_FLAG,
                "Remove them from the Pod to avoid confusion.");
        m.put(ReasonCode.WARN_PYTHONPATH_VALUEFROM,
                "Set `PYTHONPATH` as a literal value if more paths are needed.");
        m.put(ReasonCode.WARN_VLLM_PLUGINS,
                "Remove `VLLM_PLUGINS` or add the plugin to it.");
        m.put(ReasonCode.WARN_DEV_SHM_EMPTYDIR,
                "Remove that mount.");
        m.put(ReasonCode.WARN_NAMESPACE_NOT_PRIVILEGED,
                "Label the namespace `pod-security.kubernetes.io/enforce=privileged`, or run the workload in a namespace that is; otherwise the API server rejects the injected Pod.");
        m.put(ReasonCode.WARN_IMAGES_MISMATCHED,
                "Pin a matched pair: set the engine's `spec.image.tag` and `spec.injection.payloadImage.tag` to the same LMCache build.");
        return m;
    }
}
