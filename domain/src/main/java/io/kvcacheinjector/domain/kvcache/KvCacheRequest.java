package io.kvcacheinjector.domain.kvcache;

import java.util.Optional;

/**
 * The annotations of an opted-in Pod, validated (kv-cache-pool.md §3 steps 1–6, refusals.md order).
 *
 * @param runtimeId          {@code vllm}, {@code vllm-ascend} or {@code sglang}
 * @param engineAsWritten    the {@code engine} annotation as written
 * @param role               {@code Prefill} or {@code Decode}, empty for a plain server
 * @param container          the {@code container} annotation, empty when absent or empty
 * @param forwardingDeclared whether {@code launch-args-forwarded} is exactly {@code "true"}
 * @param binding            the Binding name
 */
public record KvCacheRequest(String runtimeId, String engineAsWritten, Optional<String> role, Optional<String> container,
                             boolean forwardingDeclared, String binding) {

    /** How messages say where the runtime came from, e.g. {@code engine vLLM with manufacturer ascend}. */
    public String runtimeSource(Optional<String> manufacturer) {
        return "engine " + engineAsWritten + manufacturer.map(m -> " with manufacturer " + m).orElse("");
    }
}
