package io.kvcacheinjector.domain.kvcache;

/**
 * The one transport an engine can use, when it requires one (docs/reference/kvcache-contract.md, "Transport
 * matching"): in artifact spelling ({@code ascend}) and API spelling ({@code CANN}), with the engine version the
 * requirement was measured at.
 */
public record RequiredTransport(String artifact, String api, String measuredAt) {
}
