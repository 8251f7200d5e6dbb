package io.kvcacheinjector.ports.testing;

import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.kvcache.EngineSelector;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.Rendering;
import io.kvcacheinjector.domain.kvcache.Vehicle;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import io.kvcacheinjector.domain.launch.EntryPoint;
import io.kvcacheinjector.ports.spi.EngineInjector;
import java.util.List;

/**
 * The identity of an engine installed alongside the one under test (its id, the annotation values that select it and
 * its entry point), for a golden suite that runs one engine module alone: a refusal that names the values the
 * installed engines accept, or a launch of another engine, reads as it does in the shipped webhook with all built-in
 * engines installed. A case that would select the stand-in fails loudly, since it can render nothing.
 */
public record StandInEngine(String id, String displayName, EngineSelector selector, EntryPoint entryPoint)
        implements EngineInjector {

    /** The built-in engines as their plugins declare them: vllm, vllm-ascend, sglang. */
    public static final List<StandInEngine> BUILT_IN = List.of(
            new StandInEngine("vllm", "vLLM", EngineSelector.engine("vLLM"), EntryPoint.program("vllm", "vLLM", "vllm serve")),
            new StandInEngine("vllm-ascend", "vLLM-Ascend", EngineSelector.engineWithManufacturer("vLLM", "ascend"),
                    EntryPoint.program("vllm", "vLLM", "vllm serve")),
            new StandInEngine("sglang", "SGLang", EngineSelector.engine("SGLang"),
                    EntryPoint.pythonModule("sglang.launch_server", "SGLang")));

    @Override
    public Vehicle vehicle() {
        throw unsupported();
    }

    @Override
    public FlagGrammar flagGrammar() {
        throw unsupported();
    }

    @Override
    public List<WatchedKey> watchedKeys(boolean dtypeOwned) {
        throw unsupported();
    }

    @Override
    public Rendering render(InjectionValues values) {
        throw unsupported();
    }

    private UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException("engine " + id + " is only a stand-in in this module's tests; "
                + "a case that selects it belongs in that engine's module");
    }
}
