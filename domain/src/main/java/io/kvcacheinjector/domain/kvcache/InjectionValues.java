package io.kvcacheinjector.domain.kvcache;

import java.util.Optional;

/**
 * The resolved values one injection renders, the same on every engine (reference: docs/reference/kvcache-contract.md).
 *
 * @param role           {@code Prefill} or {@code Decode} (normalised spelling), empty for a plain server
 * @param clientEndpoint the pool's {@code status.clientEndpoint}
 * @param protocol       the matched transport in artifact spelling ({@code tcp}, {@code rdma}, {@code ascend})
 * @param domain         the Binding's reuse domain (after D11)
 * @param tenantWritten  whether a tenant is written (false under {@code MultiTenancyDisabled}, D10)
 * @param dtype          the dtype to render with {@code --kv-cache-dtype}, empty when the Setting does not own it
 */
public record InjectionValues(
        Optional<String> role, String clientEndpoint, String protocol, String domain, boolean tenantWritten,
        Optional<String> dtype) {
}
