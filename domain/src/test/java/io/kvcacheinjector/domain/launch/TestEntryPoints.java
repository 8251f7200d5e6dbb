package io.kvcacheinjector.domain.launch;

import java.util.List;
import java.util.Optional;

/**
 * The entry points of the built-in engines, as their plugins declare them, for the launch tests of the domain (which
 * sees no plugin): {@code vllm} (vLLM and vLLM-Ascend) and {@code python3 -m sglang.launch_server} (SGLang).
 */
final class TestEntryPoints {
    static final EntryPoint VLLM = EntryPoint.program("vllm", "vLLM", "vllm serve");
    static final EntryPoint SGLANG = EntryPoint.pythonModule("sglang.launch_server", "SGLang");
    /** Both installed, as in the shipped webhook. */
    static final List<EntryPoint> KNOWN = List.of(VLLM, SGLANG);

    private TestEntryPoints() {
    }

    static LaunchInput input(Optional<List<String>> command, Optional<List<String>> args, boolean forwarding,
                             EntryPoint declared) {
        return new LaunchInput(command, args, forwarding, declared, KNOWN);
    }

    /** The kvcache message for a built-in runtime id. */
    static String kvcache(LaunchResult.Refused r, String container, String runtimeId, String runtimeSource) {
        return LaunchMessages.kvcache(r, container, runtimeId, runtimeSource, runtimeId.equals("sglang") ? SGLANG : VLLM);
    }
}
