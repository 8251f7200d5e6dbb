package io.kvcacheinjector.engines.vllm;

import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.Rendering;
import io.kvcacheinjector.domain.kvcache.Vehicle;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import io.kvcacheinjector.domain.launch.EntryPoint;
import io.kvcacheinjector.ports.spi.EngineInjector;
import java.util.List;
import java.util.Optional;

/** vLLM: the file vehicle with {@code MooncakeStoreConnector}, no required transport (measured at v0.29.0). */
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
    public EntryPoint entryPoint() {
        return EntryPoint.VLLM;
    }

    @Override
    public Vehicle vehicle() {
        return Vehicle.FILE;
    }

    @Override
    public Optional<RequiredTransport> requiredTransport() {
        return Optional.empty();
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
}
