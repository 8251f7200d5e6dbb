package io.kvcacheinjector.domain.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Json#parse}, the reader of the one JSON text the webhook reads outside a review (the CacheBlend connection
 * ConfigMap's {@code kv-transfer-config.json}): exactly one well-formed JSON value (RFC 8259), with the review reader's
 * limits — duplicate keys and trailing text rejected, at most {@link Json#MAX_NESTING_DEPTH} nested containers.
 */
class JsonParseTest {

    @Test
    void readsEveryKindOfValueInOrder() {
        Object v = Json.parse(" {\"b\":[1,-0,2.50,1e3,true,false,null],\"a\":{\"s\":\"x\\u00e9\\n\\\"\"}} ").orElseThrow();
        assertThat(v).isInstanceOf(Map.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) v;
        assertThat(m.keySet()).containsExactly("b", "a");
        @SuppressWarnings("unchecked")
        List<Object> b = (List<Object>) m.get("b");
        assertThat(b.get(0)).isEqualTo(1L);
        assertThat(((BigDecimal) b.get(2)).compareTo(new BigDecimal("2.5"))).isZero();
        assertThat(((BigDecimal) b.get(3)).compareTo(new BigDecimal("1000"))).isZero();
        assertThat(b.subList(4, 7)).containsExactly(Boolean.TRUE, Boolean.FALSE, null);
        assertThat(((Map<?, ?>) m.get("a")).get("s")).isEqualTo("xé\n\"");
        assertThat(Json.parse("null")).contains(Json.NULL);
        assertThat(Json.parse("\"top\"")).contains("top");
    }

    @Test
    void rejectsWhatStrictJsonRejects() {
        for (String bad : List.of("", " ", "{", "[1,]", "{\"a\":1,}", "{\"a\":1}x", "{\"a\":1} {}", "{\"a\":1,\"a\":2}",
                "01", "+1", "1.", ".5", "-", "1e", "NaN", "tru", "nul", "'a'", "\"a", "\"\\x\"", "\"\u0001\"",
                "{a:1}", "\u000b1", "1e99999999999", "\"\\u12\"", "\"\\u+041\"", "\"\\u-041\"", "\u0663", "1\u0663", "\"\\u\uff10\uff10\uff14\uff11\"")) {
            assertThat(Json.parse(bad)).as("%s", bad.codePoints().mapToObj(c -> c < 0x20 || c > 0x7e
                    ? String.format("\\u%04x", c) : Character.toString(c)).reduce("", String::concat)).isEmpty();
        }
    }

    @Test
    void nestsAsDeepAsTheReviewReaderAndNoDeeper() {
        int max = Json.MAX_NESTING_DEPTH;
        assertThat(max).isEqualTo(256);
        assertThat(Json.parse("[".repeat(max) + "]".repeat(max))).isPresent();
        assertThat(Json.parse("[".repeat(max) + "1" + "]".repeat(max))).isPresent();
        assertThat(Json.parse("[".repeat(max + 1) + "]".repeat(max + 1))).isEmpty();
        assertThat(Json.parse("[".repeat(max + 1) + "1" + "]".repeat(max + 1))).isEmpty();
        assertThat(Json.parse("{\"a\":".repeat(max) + "{}" + "}".repeat(max))).isEmpty();
        assertThat(Json.parse("{\"a\":".repeat(max - 1) + "{}" + "}".repeat(max - 1))).isPresent();
    }
}
