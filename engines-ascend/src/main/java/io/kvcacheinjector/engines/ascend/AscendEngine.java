package io.kvcacheinjector.engines.ascend;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.kvcache.EngineSelector;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.Rendering;
import io.kvcacheinjector.domain.kvcache.RequiredTransport;
import io.kvcacheinjector.domain.kvcache.Vehicle;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import io.kvcacheinjector.domain.launch.EntryPoint;
import io.kvcacheinjector.engines.vllmfamily.VllmFamilyRendering;
import io.kvcacheinjector.engines.vllmfamily.VllmFlagGrammar;
import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.EnginePlugin;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * vLLM-Ascend: selected by {@code engine: vLLM} with {@code manufacturer: ascend}, launched under vLLM's own CLI;
 * vLLM's parser and file vehicle (the vLLM-family library this engine's folder bundles, not the vLLM plugin), its own
 * connector {@code AscendStoreConnector}, the required transport {@code ascend} (API {@code CANN}, measured at
 * v0.19.1rc1), and the two env names that override the file from v0.21 (docs/reference/kvcache-contract.md,
 * "Engine versions").
 */
@EnginePlugin(spiVersion = EngineInjector.SPI_VERSION)
public final class AscendEngine implements EngineInjector {
    /** The connector selected in {@code --kv-transfer-config} (its alias {@code MooncakeConnectorStoreV1} is not used). */
    public static final String CONNECTOR = "AscendStoreConnector";

    @Override
    public String id() {
        return "vllm-ascend";
    }

    @Override
    public String displayName() {
        return "vLLM-Ascend";
    }

    @Override
    public EngineSelector selector() {
        return EngineSelector.engineWithManufacturer("vLLM", "ascend");
    }

    @Override
    public EntryPoint entryPoint() {
        return VllmFamilyRendering.ENTRY_POINT;
    }

    /**
     * No: vLLM-Ascend releases up to 0.23.0.post1 build their Mooncake store config without {@code tenant_id} and
     * write as Mooncake's tenant {@code default} (docs/explanation/tenant-compatibility.md). The file still carries
     * the tenant, for a later release that reads it.
     */
    @Override
    public boolean readsTenant() {
        return false;
    }

    @Override
    public Vehicle vehicle() {
        return Vehicle.FILE;
    }

    @Override
    public Optional<RequiredTransport> requiredTransport() {
        return Optional.of(new RequiredTransport("ascend", "CANN", "vLLM-Ascend v0.19.1rc1"));
    }

    @Override
    public FlagGrammar flagGrammar() {
        return VllmFlagGrammar.INSTANCE;
    }

    @Override
    public List<WatchedKey> watchedKeys(boolean dtypeOwned) {
        List<WatchedKey> keys = new ArrayList<>(VllmFamilyRendering.watchedKeys(displayName(), dtypeOwned));
        keys.add(WatchedKey.env("MOONCAKE_MASTER", ReasonCode.CONFIG_SOURCE,
                "vLLM-Ascend (v0.21.0rc1 and later) lets this variable override the projected file, so the injected master address would be read by nothing"));
        keys.add(WatchedKey.env("MOONCAKE_GLOBAL_SEGMENT_SIZE", ReasonCode.CONFIG_SOURCE,
                "vLLM-Ascend (v0.21.0rc1 and later) lets this variable override the projected file, so the injected segment size (0, a pure client) would be read by nothing"));
        return keys;
    }

    @Override
    public Rendering render(InjectionValues values) {
        return VllmFamilyRendering.render(CONNECTOR, values);
    }

    @Override
    public String configFileKeys() {
        return VllmFamilyRendering.CONFIG_FILE_KEYS;
    }

    @Override
    public String envFromUnchecked() {
        return "MOONCAKE_MASTER and MOONCAKE_GLOBAL_SEGMENT_SIZE (which override the file on vLLM-Ascend)";
    }
}
