package io.kvcacheinjector.domain;

import static io.kvcacheinjector.domain.Webhook.CACHEBLEND_MUTATE;
import static io.kvcacheinjector.domain.Webhook.KVCACHE_MUTATE;
import static io.kvcacheinjector.domain.Webhook.KVCACHE_VALIDATE;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The refusal, skip and warning catalogue: every way a webhook of this project turns a Pod away, skips
 * it, or admits it with a caveat. The {@link #id()} is the stable contract (audit annotation, log
 * {@code reason}, metric label); the docs table {@code docs/reference/refusal-codes.md} is generated from
 * this enum and a test keeps the two equal.
 *
 * <p>Constants are declared in check order per webhook, so {@code ordinal()} orders codes as the
 * catalogue does.
 */
public enum ReasonCode {
    // ---- shared by both mutating webhooks, checked first
    CONTRACTS_CONFLICT("contracts-conflict", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE, CACHEBLEND_MUTATE),
            "The Pod sets both opt-in labels, kvcache.gpustack.ai/inject and lmcache.ai/cacheblend-inject, to \"true\"."),
    POD_UNREADABLE("pod-unreadable", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE, KVCACHE_VALIDATE, CACHEBLEND_MUTATE),
            "The object under review is not a readable Pod (a field has the wrong JSON type). Added by this project."),

    // ---- kvcache mutate, in check order
    ANNOTATION_RESERVED("annotation-reserved", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The Pod arrives carrying kvcache.gpustack.ai/client-config or kvcache.gpustack.ai/injected."),
    ANNOTATION_UNKNOWN("annotation-unknown", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "A key under kvcache.gpustack.ai/ is not binding, engine, manufacturer, role, container or launch-args-forwarded."),
    ANNOTATION_DOMAIN("annotation-domain", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "kvcache.gpustack.ai/domain is present, whatever its value."),
    ENGINE_INVALID("engine-invalid", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "kvcache.gpustack.ai/engine is absent, empty, or a value no installed engine accepts (with the built-in engines: neither vLLM nor SGLang, vllm-ascend included), or it needs a manufacturer the Pod does not give."),
    MANUFACTURER_INVALID("manufacturer-invalid", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "kvcache.gpustack.ai/manufacturer is on a Pod whose engine value selects no engine by manufacturer (with the built-in engines: an SGLang Pod), or it is a value no installed engine accepts with that engine (anything other than ascend)."),
    ROLE_INVALID("role-invalid", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "kvcache.gpustack.ai/role is anything other than Prefill or Decode (Server and both included)."),
    FORWARDING_INVALID("forwarding-invalid", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "kvcache.gpustack.ai/launch-args-forwarded is present with a value other than exactly true."),
    BINDING_MISSING("binding-missing", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "kvcache.gpustack.ai/binding is absent or empty."),
    BINDING_CROSS_NAMESPACE("binding-cross-namespace", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The binding value contains a /."),
    CLUSTER_NOT_READY("cluster-not-ready", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The cluster view has not synced, lost its watch, or a live read after a cache miss failed."),
    BINDING_NOT_FOUND("binding-not-found", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "No KVCachePoolBinding with that name exists in the Pod's namespace."),
    BINDING_TERMINATING("binding-terminating", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The Binding exists but has a deletion timestamp."),
    POOL_NOT_FOUND("pool-not-found", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The KVCachePool named by the Binding's spec.poolRef.name does not exist (or the Binding names none)."),
    LEDGER_NOT_READY("ledger-not-ready", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The pool's QuotaLedgerAvailable condition is absent, Unknown, or False with a reason other than MultiTenancyDisabled."),
    BACKEND_NOT_FOUND("backend-not-found", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The pool's spec.backends is empty, or its first entry names a KVCacheBackend that does not exist."),
    ENDPOINT_NOT_PUBLISHED("endpoint-not-published", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The pool's status.clientEndpoint is empty."),
    TRANSPORT_MIXED("transport-mixed", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "An engine without a required transport meets two or more different effective offers."),
    TRANSPORT_UNSUPPORTED("transport-unsupported", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The engine's required transport is offered by no member group, or no offer maps to a known transport."),
    CONTAINER_AMBIGUOUS("container-ambiguous", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The Pod has more than one container and kvcache.gpustack.ai/container is absent or empty."),
    CONTAINER_IS_INIT("container-is-init", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The named container is one of the Pod's initContainers."),
    CONTAINER_NOT_FOUND("container-not-found", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The named container does not exist, or the Pod has no containers."),
    KEY_OWNED("key-owned", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The container already sets a key this webhook writes for its engine (MOONCAKE_CONFIG_PATH, --kv-transfer-config, --hicache-storage-backend)."),
    DTYPE_OWNED("dtype-owned", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The container passes --kv-cache-dtype in any spelling while the Setting makes the webhook write the Binding's dtype."),
    OFFLOADING_OVERRIDES_CONNECTOR("offloading-overrides-connector", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "A vLLM-family container passes --kv-offloading-size or --kv-offloading-backend in any spelling."),
    VOLUME_OWNED("volume-owned", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "vLLM family: a volume named gpustack-kvcache-config exists, or the container mounts it or anything at /etc/gpustack/kvcache."),
    CONFIG_SOURCE("config-source", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "SGLang sets SGLANG_HICACHE_MOONCAKE_CONFIG_PATH or --hicache-storage-backend-extra-config, or sets MOONCAKE_STANDALONE_STORAGE to a value SGLang reads as true (true, 1, yes, y, any case) or through valueFrom; vLLM-Ascend sets MOONCAKE_MASTER or MOONCAKE_GLOBAL_SEGMENT_SIZE in env."),
    EXTERNAL_LINKER_CONFLICT("external-linker-conflict", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "SGLang passes --enable-unified-cache-external-linker in any spelling: SGLang 0.5.23 rejects it with --enable-hierarchical-cache and --hicache-storage-backend, which the injection writes, and stops at start-up. Added by this project."),
    LAUNCH_NO_COMMAND("launch-no-command", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The container declares neither command nor args."),
    LAUNCH_ARGS_WITHOUT_COMMAND("launch-args-without-command", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The container has args but no command, and forwarding is not declared."),
    LAUNCH_HIDDEN_COMMAND_LINE("launch-hidden-command-line", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "After transparent launchers, the command line sits inside one argument (env -S, --split-string), and forwarding is not declared."),
    LAUNCH_SHELL_C("launch-shell-c", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The program is a shell that receives -c, alone or in a bundle."),
    LAUNCH_SCRIPT("launch-script", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The program, or a shell's script operand, ends in .sh, and forwarding is not declared."),
    LAUNCH_NO_PROGRAM("launch-no-program", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "A transparent launcher has nothing after it."),
    LAUNCH_ENGINE_MISMATCH("launch-engine-mismatch", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The launch resolves to the other engine's entry point."),
    LAUNCH_UNRECOGNISED("launch-unrecognised", Kind.REFUSAL, EnumSet.of(KVCACHE_MUTATE),
            "The program left after the launchers is not a recognised entry point, and forwarding is not declared."),
    WARN_CONFIG_FILE("warn-config-file", Kind.WARNING, EnumSet.of(KVCACHE_MUTATE, CACHEBLEND_MUTATE),
            "The container passes --config with a file, which admission cannot read."),
    WARN_ENVFROM("warn-envfrom", Kind.WARNING, EnumSet.of(KVCACHE_MUTATE),
            "The container has envFrom."),
    WARN_NO_TENANT("warn-no-tenant", Kind.WARNING, EnumSet.of(KVCACHE_MUTATE),
            "The pool reports QuotaLedgerAvailable=False with reason MultiTenancyDisabled; injected without a tenant."),
    WARN_TENANT_UNREAD("warn-tenant-unread", Kind.WARNING, EnumSet.of(KVCACHE_MUTATE),
            "The pool keeps a tenant ledger, and the engine does not read the injected tenant (vLLM-Ascend up to 0.23.0.post1), so its writes go to Mooncake's tenant default. Added by this project."),

    // ---- kvcache validate (the freeze), in table order
    FROZEN_LABEL("frozen-label", Kind.REFUSAL, EnumSet.of(KVCACHE_VALIDATE),
            "The opt-in state changes: kvcache.gpustack.ai/inject becomes \"true\" or stops being \"true\"."),
    FROZEN_RECORD("frozen-record", Kind.REFUSAL, EnumSet.of(KVCACHE_VALIDATE),
            "kvcache.gpustack.ai/injected is added, edited or removed."),
    FROZEN_CLIENT_CONFIG("frozen-client-config", Kind.REFUSAL, EnumSet.of(KVCACHE_VALIDATE),
            "kvcache.gpustack.ai/client-config is added, edited or removed."),

    // ---- cacheblend mutate, in check order (skips, refusals under fail-closed)
    ENGINE_REF_INVALID("engine-ref-invalid", Kind.SKIP, EnumSet.of(CACHEBLEND_MUTATE),
            "lmcache.ai/cacheblend-engine is absent, blank, or not a valid <name> or <namespace>/<name>."),
    ENGINE_REF_FORBIDDEN("engine-ref-forbidden", Kind.SKIP, EnumSet.of(CACHEBLEND_MUTATE),
            "The reference names another namespace that is not on the install's allow-list."),
    PD_ROLE_INVALID("pd-role-invalid", Kind.SKIP, EnumSet.of(CACHEBLEND_MUTATE),
            "lmcache.ai/pd-role is present with a value other than prefiller or decoder."),
    ENGINE_NOT_FOUND("engine-not-found", Kind.SKIP, EnumSet.of(CACHEBLEND_MUTATE),
            "No CacheBlendEngine exists at the resolved namespace/name."),
    CONNECTION_MISSING("connection-missing", Kind.SKIP, EnumSet.of(CACHEBLEND_MUTATE),
            "The engine exists but its ConfigMap <name>-connection does not."),
    CONNECTION_INVALID("connection-invalid", Kind.SKIP, EnumSet.of(CACHEBLEND_MUTATE),
            "The ConfigMap's data key for this Pod is absent, empty, not a JSON object, or has no non-empty kv_connector."),
    LOOKUP_FAILED("lookup-failed", Kind.SKIP, EnumSet.of(CACHEBLEND_MUTATE),
            "Reading the engine or its ConfigMap failed for a reason other than not-found (RBAC, timeout, view not synced)."),
    TARGET_CONTAINER_NOT_FOUND("target-container-not-found", Kind.SKIP, EnumSet.of(CACHEBLEND_MUTATE),
            "The container named by the annotation or the engine does not exist, or the Pod has no containers."),
    LAUNCH_UNPROVEN("launch-unproven", Kind.SKIP, EnumSet.of(CACHEBLEND_MUTATE),
            "The target sets command, and launch analysis cannot show that the command line reaches vLLM."),
    KV_TRANSFER_CONFIG_PRESENT("kv-transfer-config-present", Kind.SKIP, EnumSet.of(CACHEBLEND_MUTATE),
            "The target already passes --kv-transfer-config in any spelling vLLM reads as it."),
    PLUGIN_NAME_TAKEN("plugin-name-taken", Kind.SKIP, EnumSet.of(CACHEBLEND_MUTATE),
            "The Pod already uses a name CacheBlend writes for something else: an app container named cb-plugin-stage, a target mount of another volume at /cb-plugin, or (hostPath IPC) a non-hostPath volume named lmcache-dev-shm. Added by this project."),
    PAYLOAD_IMAGE_UNSET("payload-image-unset", Kind.SKIP, EnumSet.of(CACHEBLEND_MUTATE),
            "The engine has no spec.injection.payloadImage.repository."),
    WARN_OVERRIDDEN_FLAG("warn-overridden-flag", Kind.WARNING, EnumSet.of(CACHEBLEND_MUTATE),
            "The target already sets another injected flag; the appended value wins."),
    WARN_PYTHONPATH_VALUEFROM("warn-pythonpath-valuefrom", Kind.WARNING, EnumSet.of(CACHEBLEND_MUTATE),
            "The target's PYTHONPATH comes from valueFrom; it is replaced by /cb-plugin."),
    WARN_VLLM_PLUGINS("warn-vllm-plugins", Kind.WARNING, EnumSet.of(CACHEBLEND_MUTATE),
            "The target sets VLLM_PLUGINS; the CacheBlend plugin may not load."),
    WARN_DEV_SHM_EMPTYDIR("warn-dev-shm-emptydir", Kind.WARNING, EnumSet.of(CACHEBLEND_MUTATE),
            "Something is already mounted at /dev/shm on the target, hiding the shared host tmpfs."),
    WARN_NAMESPACE_NOT_PRIVILEGED("warn-namespace-not-privileged", Kind.WARNING, EnumSet.of(CACHEBLEND_MUTATE),
            "The Pod's namespace sets pod-security.kubernetes.io/enforce to a level other than privileged, which rejects the injected hostIPC (or hostPath /dev/shm). Added by this project."),
    WARN_IMAGES_MISMATCHED("warn-images-mismatched", Kind.WARNING, EnumSet.of(CACHEBLEND_MUTATE),
            "The engine's payload image tag differs from its own image tag (spec.image.tag); an unmatched plugin fails at start with an ImportError. Added by this project.");

    /** What a code does to the Pod. */
    public enum Kind {
        /** The Pod is turned away. */
        REFUSAL,
        /** CacheBlend: the Pod is admitted unchanged but for the skip-reason annotation (a refusal under fail-closed). */
        SKIP,
        /** The Pod is admitted and the response carries a warning. */
        WARNING
    }

    private final String id;
    private final Kind kind;
    private final Set<Webhook> webhooks;
    private final String firesWhen;

    ReasonCode(String id, Kind kind, Set<Webhook> webhooks, String firesWhen) {
        this.id = id;
        this.kind = kind;
        this.webhooks = webhooks;
        this.firesWhen = firesWhen;
    }

    /** The stable kebab-case code, for example {@code key-owned}. */
    public String id() {
        return id;
    }

    public Kind kind() {
        return kind;
    }

    /** The webhooks that can emit this code. */
    public Set<Webhook> webhooks() {
        return EnumSet.copyOf(webhooks);
    }

    /** What to do about it, as the catalogue says; a message's own fix names the objects. Used for the docs table. */
    public String fix() {
        return ReasonFixes.of(this);
    }

    /** One sentence: when the code fires. Used for the generated docs table. */
    public String firesWhen() {
        return firesWhen;
    }

    /** Finds a code by its id. */
    public static Optional<ReasonCode> byId(String id) {
        for (ReasonCode c : values()) {
            if (c.id.equals(id)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return id;
    }
}
