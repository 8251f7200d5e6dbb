package io.kvcacheinjector.app.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Keeps the code table of {@code docs/reference/check.md} (between its generated markers) equal to
 * {@link FindingCode}. Run with {@code -Ddocs.update=true} to regenerate it.
 */
class CheckCodeTableTest {
    private static final Path PAGE = Path.of("..", "docs", "reference", "check.md");
    static final String BEGIN = "<!-- BEGIN GENERATED from io.kvcacheinjector.app.check.FindingCode"
            + " (regenerate: bin/mvn -o -pl app -am verify -Dtest=CheckCodeTableTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Ddocs.update=true) -->\n";
    static final String END = "<!-- END GENERATED -->\n";

    static String table() {
        StringBuilder b = new StringBuilder("| Code | Severity | Finds | Fix |\n|---|---|---|---|\n");
        for (FindingCode c : FindingCode.values()) {
            b.append("| `").append(c.id()).append("` | ").append(c.severity().label()).append(" | ")
                    .append(c.finds().replace("|", "\\|")).append(" | ").append(c.fix().replace("|", "\\|"))
                    .append(" |\n");
        }
        return b.toString();
    }

    @Test
    void theCheckPageListsEveryFindingCodeWithItsSeverityAndFix() throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        int begin = page.indexOf(BEGIN);
        int end = page.indexOf(END);
        assertThat(begin).as("docs/reference/check.md has the generated-table markers").isGreaterThanOrEqualTo(0);
        assertThat(end).isGreaterThan(begin);
        String expected = page.substring(0, begin) + BEGIN + table() + END + page.substring(end + END.length());
        if (Boolean.getBoolean("docs.update")) {
            Files.writeString(PAGE, expected, StandardCharsets.UTF_8);
            page = expected;
        }
        assertThat(page).as("docs/reference/check.md is stale; regenerate with -Ddocs.update=true").isEqualTo(expected);
    }

    @Test
    void codesAreStableKebabCaseAndUnique() {
        for (FindingCode c : FindingCode.values()) {
            assertThat(c.id()).matches("[a-z][a-z0-9]*(-[a-z0-9]+)*").hasSizeLessThanOrEqualTo(32);
            assertThat(FindingCode.byId(c.id())).contains(c);
        }
        assertThat(Arrays.stream(FindingCode.values()).map(FindingCode::id).distinct().count())
                .isEqualTo(FindingCode.values().length);
    }
}
