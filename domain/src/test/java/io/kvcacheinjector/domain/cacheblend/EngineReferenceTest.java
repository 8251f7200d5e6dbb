package io.kvcacheinjector.domain.cacheblend;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class EngineReferenceTest {

    private static EngineReference parsed(String value, String podNamespace) {
        EngineReference.Parsing p = EngineReference.parse(value, podNamespace);
        assertThat(p).as("%s parses", value).isInstanceOf(EngineReference.Parsed.class);
        return ((EngineReference.Parsed) p).reference();
    }

    private static String invalid(String value) {
        EngineReference.Parsing p = EngineReference.parse(value, "team-a");
        assertThat(p).as("%s is invalid", value).isInstanceOf(EngineReference.Invalid.class);
        return ((EngineReference.Invalid) p).problem();
    }

    @Test
    void aBareNameIsLookedUpInThePodsNamespace() {
        EngineReference r = parsed("cb", "team-a");
        assertThat(r.qualified()).isEqualTo("team-a/cb");
        assertThat(r.namespaceGiven()).isFalse();
    }

    @Test
    void aQualifiedNameNamesItsNamespaceAndBothHalvesAreTrimmed() {
        EngineReference r = parsed("  tensormesh-operator / tensormesh-cacheblend ", "team-a");
        assertThat(r.qualified()).isEqualTo("tensormesh-operator/tensormesh-cacheblend");
        assertThat(r.namespaceGiven()).isTrue();
        assertThat(r.written()).isEqualTo("  tensormesh-operator / tensormesh-cacheblend ");
    }

    @Test
    void aBlankNamespaceHalfMeansThePodsNamespace() {
        EngineReference r = parsed("/cb", "team-a");
        assertThat(r.qualified()).isEqualTo("team-a/cb");
        assertThat(r.namespaceGiven()).isFalse();
    }

    @Test
    void missingBlankAndMalformedValuesSayWhatIsWrongWithTheValueAsWritten() {
        assertThat(invalid(null)).isEqualTo("is missing");
        assertThat(invalid(" \t")).isEqualTo("is \" \\t\", which is blank");
        assertThat(invalid("a/b/c")).contains("\"a/b/c\"").contains("more than one \"/\"");
        assertThat(invalid("team-a/")).contains("empty name");
        assertThat(invalid("team-a/CacheBlend")).contains("\"CacheBlend\" is not a valid Kubernetes name");
        assertThat(invalid("Team_A/cb")).contains("\"Team_A\" is not a valid namespace name");
        assertThat(invalid("a" + "b".repeat(253))).contains("is not a valid Kubernetes name");
    }

    @Test
    void aDottedEngineNameIsAValidKubernetesName() {
        assertThat(parsed("cb.v2", "team-a").name()).isEqualTo("cb.v2");
    }

    @Test
    void withoutAnyNamespaceABareNameCannotBeResolved() {
        assertThat(EngineReference.parse("cb", "")).isInstanceOf(EngineReference.Invalid.class);
        assertThat(EngineReference.parse("ops/cb", "")).isInstanceOf(EngineReference.Parsed.class);
    }

    @Property
    void anyAnnotationValueGivesAnAnswerAndEveryParsedReferenceIsAValidName(@ForAll String value) {
        EngineReference.Parsing p = EngineReference.parse(value, "team-a");
        if (p instanceof EngineReference.Parsed parsed) {
            assertThat(parsed.reference().name()).matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
            assertThat(parsed.reference().namespace()).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
        } else {
            assertThat(((EngineReference.Invalid) p).problem()).isNotBlank().doesNotContain("\n");
        }
    }
}
