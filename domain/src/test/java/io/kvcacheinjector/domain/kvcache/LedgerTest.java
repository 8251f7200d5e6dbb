package io.kvcacheinjector.domain.kvcache;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.cluster.Condition;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The quota-ledger table of docs/reference/kvcache-contract.md */
class LedgerTest {
    private static Optional<Condition> c(String status, String reason) {
        return Optional.of(new Condition("QuotaLedgerAvailable", status, reason, "m"));
    }

    @Test
    void anAbsentConditionIsNotReady() {
        assertThat(Ledger.of(Optional.empty())).isEqualTo(new Ledger.NotReady(Optional.empty()));
    }

    @Test
    void unknownIsNotReady() {
        assertThat(Ledger.of(c("Unknown", ""))).isInstanceOf(Ledger.NotReady.class);
    }

    @Test
    void falseWithMultiTenancyDisabledAdmitsWithoutTenant() {
        assertThat(Ledger.of(c("False", "MultiTenancyDisabled"))).isInstanceOf(Ledger.WithoutTenant.class);
    }

    @Test
    void falseWithAnyOtherReasonIsNotReadyAndKeepsTheConditionToQuote() {
        assertThat(Ledger.of(c("False", "LedgerUnreachable"))).isEqualTo(new Ledger.NotReady(c("False", "LedgerUnreachable")));
        assertThat(Ledger.of(c("False", "QuotaPolicyNotWritable"))).isInstanceOf(Ledger.NotReady.class);
    }

    @Test
    void trueAdmitsWithTheTenant() {
        assertThat(Ledger.of(c("True", "Available"))).isInstanceOf(Ledger.WithTenant.class);
    }
}
