package io.kvcacheinjector.domain.kvcache;

import io.kvcacheinjector.domain.cluster.Condition;
import java.util.Optional;

/** The quota-ledger gate (docs/reference/kvcache-contract.md): whether the pool admits, and whether a tenant is written. */
public sealed interface Ledger permits Ledger.WithTenant, Ledger.WithoutTenant, Ledger.NotReady {
    /** {@code True}: admit, the tenant is the Binding's domain. */
    record WithTenant() implements Ledger {
    }

    /** {@code False} with {@code MultiTenancyDisabled}: admit with no tenant (D10). */
    record WithoutTenant() implements Ledger {
    }

    /** Absent, {@code Unknown}, or {@code False} for another reason: refuse. {@code condition} is empty when absent. */
    record NotReady(Optional<Condition> condition) implements Ledger {
    }

    static Ledger of(Optional<Condition> quotaLedger) {
        if (quotaLedger.isEmpty()) {
            return new NotReady(Optional.empty());
        }
        Condition c = quotaLedger.get();
        if (c.status().equals("True")) {
            return new WithTenant();
        }
        if (c.status().equals("False") && c.reason().equals("MultiTenancyDisabled")) {
            return new WithoutTenant();
        }
        return new NotReady(quotaLedger);
    }
}
