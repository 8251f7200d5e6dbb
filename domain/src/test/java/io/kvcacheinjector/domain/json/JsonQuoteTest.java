package io.kvcacheinjector.domain.json;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/**
 * {@link Json#quote}: the escapes it writes, and that copying the runs that need no escape in one piece (the
 * performance change of issue 8) writes exactly what a character-by-character writer would.
 */
class JsonQuoteTest {

    @Test
    void escapesQuotesBackslashesAndControlCharactersAndKeepsEverythingElse() {
        assertThat(Json.quote("")).isEqualTo("\"\"");
        assertThat(Json.quote("plain text 123")).isEqualTo("\"plain text 123\"");
        assertThat(Json.quote("{\"kv_connector\":\"MooncakeStoreConnector\"}"))
                .isEqualTo("\"{\\\"kv_connector\\\":\\\"MooncakeStoreConnector\\\"}\"");
        assertThat(Json.quote("a\\b\nc\rd\te\bf\fg")).isEqualTo("\"a\\\\b\\nc\\rd\\te\\bf\\fg\"");
        assertThat(Json.quote("\u0001x\u001f\u007f\u0085\u2028\u2029"))
                .isEqualTo("\"\\u0001x\\u001f\\u007f\\u0085\\u2028\\u2029\"");
        assertThat(Json.quote("é … 漢字 \uD83D\uDE00")).isEqualTo("\"é … 漢字 \uD83D\uDE00\"");
        assertThat(Json.quote("\"")).isEqualTo("\"\\\"\"");
        assertThat(Json.quote("ends with a quote\"")).isEqualTo("\"ends with a quote\\\"\"");
    }

    @Test
    void appendsToWhatIsAlreadyInTheBuilder() {
        StringBuilder out = new StringBuilder("[");
        Json.quote("a\"b", out);
        out.append(',');
        Json.quote("c", out);
        assertThat(out).hasToString("[\"a\\\"b\",\"c\"");
    }

    @Property
    void writesWhatACharacterByCharacterWriterWrites(
            @ForAll @StringLength(max = 200) @CharRange(from = '\u0000', to = '\uD7FF') String s) {
        assertThat(Json.quote(s)).isEqualTo(charByChar(s));
    }

    @Property
    void readsBackAsTheSameString(@ForAll @StringLength(max = 200) String s) {
        assertThat(Json.parse(Json.quote(s))).contains(s);
    }

    /** The writer as it was before issue 8, for text without surrogates. */
    private static String charByChar(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
