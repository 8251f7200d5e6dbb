package io.kvcacheinjector.ports.spi;

import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.Rendering;
import io.kvcacheinjector.domain.kvcache.Vehicle;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import io.kvcacheinjector.domain.launch.EntryPoint;
import java.util.List;
import java.util.Optional;

/**
 * One inference engine (the SPI every {@code engines-*} module implements once, discovered with
 * {@link java.util.ServiceLoader} in {@code app} only). Ids: {@code vllm}, {@code vllm-ascend}, {@code sglang}.
 */
public interface EngineInjector {
    /** The stable lowercase id, also the record's {@code engine}. */
    String id();

    /** The engine as messages name it: {@code vLLM}, {@code vLLM-Ascend}, {@code SGLang}. */
    String displayName();

    /** The entry point launch analysis must find for this runtime. */
    EntryPoint entryPoint();

    /** How the engine receives its configuration. */
    Vehicle vehicle();

    /** The transport the engine requires, if any (kv-cache-pool.md §4). */
    Optional<RequiredTransport> requiredTransport();

    /** How the engine's parser reads a token. */
    FlagGrammar flagGrammar();

    /**
     * The keys to keep out of the target container, in check order: owned keys, dtype (only when
     * {@code dtypeOwned}), offloading flags, config-source keys.
     */
    List<WatchedKey> watchedKeys(boolean dtypeOwned);

    /** Renders the injection for resolved values. */
    Rendering render(InjectionValues values);

    /**
     * A required transport, in artifact spelling ({@code ascend}) and API spelling ({@code CANN}), with the engine
     * version the requirement was measured at.
     */
    record RequiredTransport(String artifact, String api, String measuredAt) {
    }
}
