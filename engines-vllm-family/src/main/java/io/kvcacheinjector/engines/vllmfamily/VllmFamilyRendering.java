package io.kvcacheinjector.engines.vllmfamily;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.json.Json;
import io.kvcacheinjector.domain.kvcache.EnvEntry;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.KvCacheKeys;
import io.kvcacheinjector.domain.kvcache.Rendering;
import io.kvcacheinjector.domain.kvcache.Vehicle;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import io.kvcacheinjector.domain.launch.EntryPoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The file vehicle shared by vLLM and vLLM-Ascend (docs/reference/kvcache-contract.md, "What is written"):
 * {@code --kv-transfer-config} selecting the family member's connector and the role, {@code MOONCAKE_CONFIG_PATH},
 * and the {@code client-config} document the projected file carries. The two engines share the file's keys, not a
 * connector registry.
 */
public final class VllmFamilyRendering {
    /** vLLM's own CLI, which vLLM-Ascend runs under as a plugin: {@code vllm …}. */
    public static final EntryPoint ENTRY_POINT = EntryPoint.program("vllm", "vLLM", "vllm serve");

    /** What a {@code --config} file must not set, for the {@code warn-config-file} warning. */
    public static final String CONFIG_FILE_KEYS =
            "keep the connector, dtype, offloading keys out of it (its dotted keys apply after the injected flag)";

    private VllmFamilyRendering() {
    }

    /** Renders for the connector {@code connector} ({@code MooncakeStoreConnector} or {@code AscendStoreConnector}). */
    public static Rendering render(String connector, InjectionValues v) {
        Map<String, Object> transfer = new LinkedHashMap<>();
        transfer.put("kv_connector", connector);
        transfer.put("kv_role", v.role().map(r -> r.equals("Prefill") ? "kv_producer" : "kv_consumer").orElse("kv_both"));
        List<String> args = new ArrayList<>(List.of("--kv-transfer-config", Json.write(transfer)));
        v.dtype().ifPresent(d -> {
            args.add(KvCacheKeys.DTYPE_FLAG);
            args.add(d);
        });
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("metadata_server", KvCacheKeys.METADATA_SERVER);
        config.put("master_server_address", v.clientEndpoint());
        config.put("protocol", v.protocol());
        config.put("device_name", "");
        config.put("mode", KvCacheKeys.MODE);
        config.put("global_segment_size", 0L);
        config.put("local_buffer_size", KvCacheKeys.LOCAL_BUFFER_SIZE);
        if (v.tenantWritten()) {
            config.put("tenant_id", v.domain());
        }
        return new Rendering(Vehicle.FILE, args, List.of(),
                List.of(EnvEntry.literal(KvCacheKeys.CONFIG_PATH_ENV, KvCacheKeys.FILE_PATH)),
                Optional.of(Json.write(config)));
    }

    /** The keys every vLLM-family engine watches (docs/reference/flag-grammar.md), in check order. */
    public static List<WatchedKey> watchedKeys(String engineName, boolean dtypeOwned) {
        List<WatchedKey> keys = new ArrayList<>();
        keys.add(WatchedKey.flag("--kv-transfer-config", ReasonCode.KEY_OWNED,
                "the container already configures a KV cache connector, so two sources would set the one connector " + engineName + " runs"));
        keys.add(WatchedKey.env(KvCacheKeys.CONFIG_PATH_ENV, ReasonCode.KEY_OWNED,
                "the container already configures a KV cache: this variable also selects the store configuration file " + engineName
                        + " reads, so the projected file would be read by nothing"));
        if (dtypeOwned) {
            keys.add(WatchedKey.flag(KvCacheKeys.DTYPE_FLAG, ReasonCode.DTYPE_OWNED,
                    "the dtype comes from the Binding, and mixed dtypes in one reuse domain read each other's blocks wrongly"));
        }
        String offloading = engineName + " then replaces the injected connector with its offloading connector, so the pool would never be used";
        keys.add(WatchedKey.flag("--kv-offloading-size", ReasonCode.OFFLOADING_OVERRIDES_CONNECTOR, offloading));
        keys.add(WatchedKey.flag("--kv-offloading-backend", ReasonCode.OFFLOADING_OVERRIDES_CONNECTOR, offloading));
        return keys;
    }
}
