package io.kvcacheinjector.domain.flags;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The release column is checked by hand (for start-up), and must accept exactly what the documented form
 * {@code first..last[,first..last...]} says: the same strings as this regular expression, which the check replaced.
 */
class FlagCatalogueRangeProperties {
    private static final String RANGE = "[^\\s.,][^\\s,]*?\\.\\.[^\\s.,][^\\s,]*";
    private static final Pattern FORM = Pattern.compile(RANGE + "(," + RANGE + ")*");

    @Property(tries = 3000)
    void aReleaseColumnIsAcceptedExactlyWhenItHasTheDocumentedForm(@ForAll("columns") String column) {
        boolean accepted;
        try {
            FlagCatalogue.parse(List.of("--x " + column));
            accepted = true;
        } catch (IllegalArgumentException e) {
            assertThat(e).hasMessageContaining("first..last");
            accepted = false;
        }
        assertThat(accepted).as("\"%s\"", column).isEqualTo(FORM.matcher(column.strip()).matches());
    }

    @Provide
    Arbitrary<String> columns() {
        // release-like pieces, so that both answers are common
        Arbitrary<String> piece = Arbitraries.of("0", "1", "0.5", "11", ".", "..", "...", ",", " ", "a", "rc1", "-",
                "0.23.0", "post1");
        return piece.list().ofMinSize(1).ofMaxSize(8).map(l -> String.join("", l))
                .filter(s -> !s.isBlank());
    }
}
