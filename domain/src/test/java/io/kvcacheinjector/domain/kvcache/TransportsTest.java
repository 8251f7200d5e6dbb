package io.kvcacheinjector.domain.kvcache;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TransportsTest {

    @ParameterizedTest(name = "{0} -> \"{1}\"")
    @CsvSource({"Auto,tcp", "TCP,tcp", "RDMA,rdma", "EFA,efa", "CANN,ascend", "ROCM,hip", "MUSA,musa", "MACA,maca",
            "rdma,''", "Infiniband,''"})
    void mapsTheApiEnumToTheArtifactSpellingCaseSensitively(String api, String artifact) {
        assertThat(Transports.artifact(api)).isEqualTo(artifact);
    }

    @Test
    void aBackendLeftAtItsDefaultsOffersTcp() {
        assertThat(Transports.offers(new KvCacheBackend("b", Optional.empty(), List.of()))).containsExactly("tcp");
    }

    @Test
    void managedGroupsOfferOneValueEachInDeclarationOrderInheritingTheBackendValue() {
        KvCacheBackend b = new KvCacheBackend("b", Optional.of("RDMA"),
                List.of(Optional.empty(), Optional.of("TCP"), Optional.empty(), Optional.of("CANN")));
        assertThat(Transports.offers(b)).containsExactly("rdma", "tcp", "rdma", "ascend");
    }

    @Test
    void anEngineWithoutRequirementTakesTheSingleDistinctOfferAndCountsDuplicatesOnce() {
        assertThat(Transports.match(List.of("rdma", "rdma"), Optional.empty())).isEqualTo(new Transports.Matched("rdma"));
    }

    @Test
    void twoDistinctOffersAreMixedForAnEngineWithoutRequirement() {
        assertThat(Transports.match(List.of("rdma", "tcp", "rdma"), Optional.empty()))
                .isEqualTo(new Transports.Mixed(List.of("rdma", "tcp")));
    }

    @Test
    void unknownOffersAreSkippedInTheMixingCheckAndAllUnknownIsUnsupported() {
        assertThat(Transports.match(List.of("", "tcp"), Optional.empty())).isEqualTo(new Transports.Matched("tcp"));
        assertThat(Transports.match(List.of("", ""), Optional.empty())).isInstanceOf(Transports.Unsupported.class);
    }

    @Test
    void anEngineWithARequirementIsNeverMixedAndTakesTheFirstMatchingOffer() {
        assertThat(Transports.match(List.of("rdma", "ascend", "tcp"), Optional.of("ascend")))
                .isEqualTo(new Transports.Matched("ascend"));
        assertThat(Transports.match(List.of("rdma", "rdma"), Optional.of("ascend"))).isInstanceOf(Transports.Unsupported.class);
    }
}
