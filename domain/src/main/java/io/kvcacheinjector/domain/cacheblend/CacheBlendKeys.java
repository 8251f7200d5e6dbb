package io.kvcacheinjector.domain.cacheblend;

/**
 * The label, annotation keys and fixed names of the CacheBlend contract (docs/reference/cacheblend-injection.md). They are the
 * upstream operator's names, so a Pod written for the upstream webhook works unchanged.
 */
public final class CacheBlendKeys {
    /** The opt-in label; only the value {@code "true"} opts in. */
    public static final String LABEL_INJECT = "lmcache.ai/cacheblend-inject";
    /** The other contract's opt-in label (a Pod carrying both is refused with {@code contracts-conflict}). */
    public static final String KVCACHE_LABEL_INJECT = "kvcache.gpustack.ai/inject";
    /** Selects the engine: {@code <name>} or {@code <namespace>/<name>}. */
    public static final String ENGINE = "lmcache.ai/cacheblend-engine";
    /** Optional target container override. */
    public static final String CONTAINER = "lmcache.ai/cacheblend-container";
    /** Optional comma-separated Secret names that replace the engine's {@code injection.imagePullSecrets}. */
    public static final String IMAGE_PULL_SECRETS = "lmcache.ai/cacheblend-image-pull-secrets";
    /** Optional {@code prefiller} or {@code decoder}: selects the ConfigMap key of a disaggregated engine. */
    public static final String PD_ROLE = "lmcache.ai/pd-role";
    /** Written on success; a Pod arriving with it set to {@code "true"} is admitted untouched. */
    public static final String INJECTED = "lmcache.ai/cacheblend-injected";
    /** Written on a skip, with the reason code as its value. */
    public static final String SKIP_REASON = "lmcache.ai/cacheblend-skip-reason";

    /** The engine's connection ConfigMap is {@code <engine>} followed by this suffix, in the engine's namespace. */
    public static final String CONNECTION_SUFFIX = "-connection";
    public static final String CONNECTION_KEY = "kv-transfer-config.json";
    public static final String CONNECTION_KEY_PREFILLER = "kv-transfer-config-prefiller.json";
    public static final String CONNECTION_KEY_DECODER = "kv-transfer-config-decoder.json";

    public static final String PLUGIN_VOLUME = "cb-plugin";
    public static final String PLUGIN_PATH = "/cb-plugin";
    public static final String INIT_CONTAINER = "cb-plugin-stage";
    public static final String SHARED_DIR_ENV = "SHARED_DIR";
    public static final String PYTHONPATH = "PYTHONPATH";
    public static final String VLLM_PLUGINS = "VLLM_PLUGINS";
    public static final String DEV_SHM_VOLUME = "lmcache-dev-shm";
    public static final String DEV_SHM_PATH = "/dev/shm";
    public static final String NIXL_HOST_ENV = "VLLM_NIXL_SIDE_CHANNEL_HOST";
    public static final String NIXL_PORT_ENV = "VLLM_NIXL_SIDE_CHANNEL_PORT";

    /** The engine's {@code spec.injection.targetContainer}, as messages name it. */
    public static final String ENGINE_TARGET_FIELD = "spec.injection.targetContainer";
    /** The engine's payload image field, as messages name it. */
    public static final String PAYLOAD_FIELD = "spec.injection.payloadImage.repository";

    private CacheBlendKeys() {
    }

    /** Whether a label or annotation value is exactly {@code "true"} ({@code True} and {@code yes} do not count). */
    public static boolean isTrue(String value) {
        return "true".equals(value);
    }

    /** The name of an engine's connection ConfigMap. */
    public static String connectionName(String engineName) {
        return engineName + CONNECTION_SUFFIX;
    }
}
