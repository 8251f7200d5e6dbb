package io.kvcacheinjector.engines.sglang;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.kvcache.EngineSelector;
import io.kvcacheinjector.domain.kvcache.EnvEntry;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.KvCacheKeys;
import io.kvcacheinjector.domain.kvcache.Rendering;
import io.kvcacheinjector.domain.kvcache.Vehicle;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import io.kvcacheinjector.domain.launch.EntryPoint;
import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.EnginePlugin;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * SGLang: selected by {@code engine: SGLang}, launched as {@code python3 -m sglang.launch_server}; the environment
 * vehicle (docs/reference/kvcache-contract.md, "What is written"), {@code --hicache-storage-backend mooncake}, and the
 * defaulted {@code --enable-hierarchical-cache} last; it does not read the role (measured at v0.5.18).
 */
@EnginePlugin(spiVersion = EngineInjector.SPI_VERSION)
public final class SglangEngine implements EngineInjector {
    public static final String HIERARCHICAL_CACHE = "--enable-hierarchical-cache";

    /** SGLang 0.5.23's direct-L3 linker, which excludes the hierarchical cache the injection turns on. */
    static final String EXTERNAL_LINKER = "--enable-unified-cache-external-linker";

    /** Selects SGLang's standalone store client (measured at 0.5.23: an {@code EnvBool}, default false). */
    static final String STANDALONE_STORAGE = "MOONCAKE_STANDALONE_STORAGE";

    /**
     * The values SGLang's {@code EnvBool} reads as true (lower-cased, not trimmed); "false", "0", "no", "n", empty and
     * anything it cannot parse leave the default, false, and are harmless.
     */
    static final Set<String> STANDALONE_STORAGE_ON = Set.of("true", "1", "yes", "y");

    @Override
    public String id() {
        return "sglang";
    }

    @Override
    public String displayName() {
        return "SGLang";
    }

    @Override
    public EngineSelector selector() {
        return EngineSelector.engine("SGLang");
    }

    @Override
    public EntryPoint entryPoint() {
        return EntryPoint.pythonModule("sglang.launch_server", "SGLang");
    }

    @Override
    public boolean readsRole() {
        return false;
    }

    @Override
    public String configFileKeys() {
        return "keep the connector, dtype, offloading and SGLang storage keys out of it";
    }

    @Override
    public String envFromUnchecked() {
        return "config-source keys such as SGLANG_HICACHE_MOONCAKE_CONFIG_PATH and MOONCAKE_STANDALONE_STORAGE";
    }

    @Override
    public Vehicle vehicle() {
        return Vehicle.ENVIRONMENT;
    }

    @Override
    public FlagGrammar flagGrammar() {
        return SglangFlagGrammar.INSTANCE;
    }

    @Override
    public List<WatchedKey> watchedKeys(boolean dtypeOwned) {
        List<WatchedKey> keys = new ArrayList<>();
        keys.add(WatchedKey.flag("--hicache-storage-backend", ReasonCode.KEY_OWNED,
                "the container already configures a KV cache storage backend, so two sources would set the one backend SGLang runs"));
        if (dtypeOwned) {
            keys.add(WatchedKey.flag(KvCacheKeys.DTYPE_FLAG, ReasonCode.DTYPE_OWNED,
                    "the dtype comes from the Binding, and mixed dtypes in one reuse domain read each other's blocks wrongly"));
        }
        keys.add(WatchedKey.env("SGLANG_HICACHE_MOONCAKE_CONFIG_PATH", ReasonCode.CONFIG_SOURCE,
                "SGLang then reads its store settings from that file instead of the environment (its mere presence selects the file), leaving every injected MOONCAKE_* variable unread"));
        keys.add(WatchedKey.envWithValues(STANDALONE_STORAGE, STANDALONE_STORAGE_ON, ReasonCode.CONFIG_SOURCE,
                "SGLang then builds a standalone (dummy) Mooncake store client that attaches to a local store process"
                        + " (MOONCAKE_CLIENT) and reads none of the injected master, metadata server, protocol, device,"
                        + " tenant or hostname, so nothing reaches the Binding's pool"));
        keys.add(WatchedKey.flag("--hicache-storage-backend-extra-config", ReasonCode.CONFIG_SOURCE,
                "SGLang then reads its store settings from that configuration instead of the environment, leaving every injected MOONCAKE_* variable unread"));
        keys.add(WatchedKey.flag(EXTERNAL_LINKER, ReasonCode.EXTERNAL_LINKER_CONFLICT,
                "SGLang 0.5.23 rejects that linker together with --enable-hierarchical-cache and"
                        + " --hicache-storage-backend, which this webhook writes, so the injected container would stop"
                        + " at start-up (\"mutually exclusive\")"));
        return keys;
    }

    @Override
    public Rendering render(InjectionValues v) {
        List<String> args = new ArrayList<>(List.of("--hicache-storage-backend", "mooncake"));
        v.dtype().ifPresent(d -> {
            args.add(KvCacheKeys.DTYPE_FLAG);
            args.add(d);
        });
        List<EnvEntry> env = new ArrayList<>();
        if (v.tenantWritten()) {
            env.add(EnvEntry.literal("MOONCAKE_TENANT_ID", v.domain()));
        }
        env.add(EnvEntry.literal("MOONCAKE_MASTER", v.clientEndpoint()));
        env.add(EnvEntry.literal("MOONCAKE_TE_META_DATA_SERVER", KvCacheKeys.METADATA_SERVER));
        env.add(EnvEntry.literal("MOONCAKE_PROTOCOL", v.protocol()));
        env.add(EnvEntry.literal("MOONCAKE_DEVICE", ""));
        env.add(EnvEntry.literal("MOONCAKE_GLOBAL_SEGMENT_SIZE", "0"));
        env.add(EnvEntry.fieldRef("MOONCAKE_LOCAL_HOSTNAME", "status.podIP"));
        return new Rendering(Vehicle.ENVIRONMENT, args, List.of(HIERARCHICAL_CACHE), env, Optional.empty());
    }
}
