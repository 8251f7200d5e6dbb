package io.kvcacheinjector.domain.kvcache;

import java.util.Optional;

/**
 * The annotations of an opted-in Pod, validated (docs/reference/kvcache-contract.md, "Order of checks", steps 1–6).
 *
 * @param runtimeId          the id of the installed engine the annotations select
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
