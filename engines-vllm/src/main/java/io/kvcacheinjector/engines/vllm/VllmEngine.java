package io.kvcacheinjector.engines.vllm;

import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.kvcache.EngineSelector;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.Rendering;
import io.kvcacheinjector.domain.kvcache.Vehicle;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import io.kvcacheinjector.domain.launch.EntryPoint;
import io.kvcacheinjector.engines.vllmfamily.VllmFamilyRendering;
import io.kvcacheinjector.engines.vllmfamily.VllmFlagGrammar;
import io.kvcacheinjector.ports.spi.EngineCapability;
import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.EnginePlugin;
import java.util.List;
import java.util.Set;

/**
 * vLLM: selected by {@code engine: vLLM}, launched as {@code vllm …}; the file vehicle with
 * {@code MooncakeStoreConnector}, no required transport (measured at v0.29.0). It is also the engine of the
 * CacheBlend contract.
 */
@EnginePlugin(spiVersion = EngineInjector.SPI_VERSION)
public final class VllmEngine implements EngineInjector {
    /** The connector selected in {@code --kv-transfer-config}. */
    public static final String CONNECTOR = "MooncakeStoreConnector";

    @Override
    public String id() {
        return "vllm";
    }

    @Override
    public String displayName() {
        return "vLLM";
    }

    @Override
    public EngineSelector selector() {
        return EngineSelector.engine("vLLM");
    }

    @Override
    public EntryPoint entryPoint() {
        return VllmFamilyRendering.ENTRY_POINT;
    }

    @Override
    public Vehicle vehicle() {
        return Vehicle.FILE;
    }

    @Override
    public FlagGrammar flagGrammar() {
        return VllmFlagGrammar.INSTANCE;
    }

    @Override
    public List<WatchedKey> watchedKeys(boolean dtypeOwned) {
        return VllmFamilyRendering.watchedKeys(displayName(), dtypeOwned);
    }

    @Override
    public Rendering render(InjectionValues values) {
        return VllmFamilyRendering.render(CONNECTOR, values);
    }

    @Override
    public Set<EngineCapability> capabilities() {
        return Set.of(EngineCapability.CACHEBLEND);
    }

    @Override
    public String configFileKeys() {
        return VllmFamilyRendering.CONFIG_FILE_KEYS;
    }

    @Override
    public String envFromUnchecked() {
        return "MOONCAKE_CONFIG_PATH";
    }
}
