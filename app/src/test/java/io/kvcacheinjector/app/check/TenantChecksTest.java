package io.kvcacheinjector.app.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link TenantChecks#unregisteredDomain}: a Binding whose reuse domain its pool's {@code status.domains[]} does not
 * name, while the pool keeps a ledger, is {@code domain-not-registered}; nothing else is.
 */
class TenantChecksTest {
    private static final Map<String, Object> LEDGER_TRUE = Map.of("type", "QuotaLedgerAvailable", "status", "True",
            "reason", "Available");

    @Test
    void aDomainThePoolDoesNotListIsReportedNamingTheBindingTheDomainThePoolAndTheFix() {
        Finding f = TenantChecks.unregisteredDomain(binding("team-a", "chat", "team-a-chat", false),
                pool(List.of(LEDGER_TRUE), List.of("team-b-chat"))).orElseThrow();

        assertThat(f.code()).isEqualTo(FindingCode.DOMAIN_NOT_REGISTERED);
        assertThat(f.code().id()).isEqualTo("domain-not-registered");
        assertThat(f.severity()).isEqualTo(Severity.WARNING);
        assertThat(f.object()).isEqualTo("KVCachePoolBinding team-a/chat");
        assertThat(f.message()).startsWith("KVCachePoolBinding team-a/chat names the reuse domain \"team-a-chat\"")
                .contains("KVCachePool pool-a does not list in status.domains[]")
                .contains("it lists \"team-b-chat\"")
                .contains("QuotaLedgerAvailable is True")
                .contains("caches nothing");
        assertThat(f.fix()).isEqualTo("wait for the pool controller to register the domain, or check the master's"
                + " quota policy; until then every put fails with TENANT_NOT_REGISTERED");
    }

    @Test
    void aBindingWithoutADomainNameIsTheTenantDefaultAndIsToldToNameOne() {
        Finding f = TenantChecks.unregisteredDomain(binding("team-a", "chat", "", false),
                pool(List.of(LEDGER_TRUE), List.of("team-a-chat"))).orElseThrow();

        assertThat(f.message()).contains("names the reuse domain \"default\"")
                .contains("spec.domain.name is empty, so the webhook writes the tenant \"default\"");
        assertThat(f.fix()).contains("TENANT_NOT_REGISTERED")
                .endsWith("give KVCachePoolBinding team-a/chat a spec.domain.name");
    }

    @Test
    void anEmptyPublishedListNamesNoDomain() {
        Finding f = TenantChecks.unregisteredDomain(binding("team-a", "chat", "team-a-chat", false),
                pool(List.of(LEDGER_TRUE), List.of())).orElseThrow();

        assertThat(f.message()).contains("(an empty list)");
    }

    @Test
    void aDomainThePoolListsIsNotReported() {
        assertThat(TenantChecks.unregisteredDomain(binding("team-a", "chat", "team-a-chat", false),
                pool(List.of(LEDGER_TRUE), List.of("team-b-chat", "team-a-chat")))).isEmpty();
    }

    @Test
    void aPoolThatPublishesNoDomainListGetsNoFinding() {
        Map<String, Object> pool = Map.of("metadata", Map.of("name", "pool-a"),
                "status", Map.of("clientEndpoint", "mc:50051", "conditions", List.of(LEDGER_TRUE)));

        assertThat(TenantChecks.publishedDomains(pool)).isEmpty();
        assertThat(TenantChecks.unregisteredDomain(binding("team-a", "chat", "team-a-chat", false), pool)).isEmpty();
        assertThat(TenantChecks.unregisteredDomain(binding("team-a", "chat", "", false), pool)).isEmpty();
    }

    @Test
    void aPoolWithoutALedgerIsNotCompared() {
        Map<String, Object> disabled = Map.of("type", "QuotaLedgerAvailable", "status", "False",
                "reason", "MultiTenancyDisabled");
        Map<String, Object> unknown = Map.of("type", "QuotaLedgerAvailable", "status", "Unknown");
        KvCachePoolBinding chat = binding("team-a", "chat", "team-a-chat", false);

        assertThat(TenantChecks.unregisteredDomain(chat, pool(List.of(disabled), List.of("other")))).isEmpty();
        assertThat(TenantChecks.unregisteredDomain(chat, pool(List.of(unknown), List.of("other")))).isEmpty();
        assertThat(TenantChecks.unregisteredDomain(chat, pool(List.of(), List.of("other")))).isEmpty();
    }

    @Test
    void aTerminatingBindingIsNotReported() {
        assertThat(TenantChecks.unregisteredDomain(binding("team-a", "chat", "team-a-chat", true),
                pool(List.of(LEDGER_TRUE), List.of("other")))).isEmpty();
    }

    private static KvCachePoolBinding binding(String namespace, String name, String domain, boolean terminating) {
        return new KvCachePoolBinding(namespace, name, Optional.of("pool-a"), domain, "bfloat16", terminating);
    }

    private static Map<String, Object> pool(List<Map<String, Object>> conditions, List<String> domains) {
        return Map.of("metadata", Map.of("name", "pool-a"), "spec", Map.of("backends", List.of("mc")),
                "status", Map.of("clientEndpoint", "mc:50051", "conditions", conditions,
                        "domains", domains.stream().map(d -> Map.of("name", d, "blockSize", 128, "dtype", "bfloat16",
                                "binding", Map.of("namespace", "team-b", "name", "chat"))).toList()));
    }
}
