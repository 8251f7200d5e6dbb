package io.kvcacheinjector.domain.kvcache;

import java.util.List;

/** The label, annotation keys and constants of the {@code kvcache.gpustack.ai} contract (docs/reference/kvcache-contract.md). */
public final class KvCacheKeys {
    public static final String PREFIX = "kvcache.gpustack.ai/";
    public static final String LABEL_INJECT = PREFIX + "inject";
    public static final String BINDING = PREFIX + "binding";
    public static final String ENGINE = PREFIX + "engine";
    public static final String MANUFACTURER = PREFIX + "manufacturer";
    public static final String ROLE = PREFIX + "role";
    public static final String CONTAINER = PREFIX + "container";
    public static final String LAUNCH_ARGS_FORWARDED = PREFIX + "launch-args-forwarded";
    public static final String DOMAIN = PREFIX + "domain";
    public static final String CLIENT_CONFIG = PREFIX + "client-config";
    public static final String INJECTED = PREFIX + "injected";
    /** The input annotations a Pod may carry, in the order messages list them. */
    public static final List<String> ACCEPTED = List.of(BINDING, ENGINE, MANUFACTURER, ROLE, CONTAINER, LAUNCH_ARGS_FORWARDED);

    /** The other contract's opt-in label. */
    public static final String CACHEBLEND_LABEL = "lmcache.ai/cacheblend-inject";

    public static final String VOLUME_NAME = "gpustack-kvcache-config";
    public static final String MOUNT_PATH = "/etc/gpustack/kvcache";
    public static final String FILE_NAME = "mooncake.json";
    public static final String FILE_PATH = MOUNT_PATH + "/" + FILE_NAME;
    public static final String METADATA_SERVER = "P2PHANDSHAKE";
    public static final long LOCAL_BUFFER_SIZE = 134_217_728L;
    public static final String MODE = "standalone-store";
    public static final String DTYPE_FLAG = "--kv-cache-dtype";
    public static final String CONFIG_PATH_ENV = "MOONCAKE_CONFIG_PATH";
    /** Observability toggles, each appended only when absent. */
    public static final List<EnvEntry> TOGGLES = List.of(
            EnvEntry.literal("MC_TE_METRIC", "1"), EnvEntry.literal("MC_STORE_CLIENT_METRIC_BANDWIDTH", "1"));

    private KvCacheKeys() {
    }

    /** Whether a label or annotation value is exactly {@code "true"} ({@code True} and {@code yes} do not count). */
    public static boolean isTrue(String value) {
        return "true".equals(value);
    }
}
