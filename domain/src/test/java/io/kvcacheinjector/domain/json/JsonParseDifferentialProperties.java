package io.kvcacheinjector.domain.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link Json#parse} against strict Jackson configured as the review reader is (duplicate keys, trailing tokens,
 * nesting depth 256, big decimals): over generated documents and hostile variants of them (characters inserted,
 * deleted or replaced from an alphabet of JSON's delimiters, escapes, signs, non-ASCII digits, control characters and
 * surrogates, and deep nesting), both accept the same texts, and where they accept, they read the same value.
 */
class JsonParseDifferentialProperties {
    private static final ObjectMapper STRICT = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(Json.MAX_NESTING_DEPTH).build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private static final List<String> HOSTILE = List.of("{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "u00e9", "0",
            "-", "+", ".", "e", "E", "01", "\u0663", "\uff11", " ", "\t", "\n", "\u000b", "\u0000", "\u001f", "\ud800",
            "\udc00", "t", "true", "null", "\"a\":1", "\"a\"", "x", "\u00e9", "[".repeat(300), "]".repeat(300));

    @Property(tries = 3000)
    void acceptsExactlyWhatStrictJacksonAcceptsAndReadsTheSameValue(@ForAll("documents") String text) {
        Optional<Object> ours = Json.parse(text);
        Optional<Object> jackson = jackson(text);
        assertThat(ours.isPresent()).as("accepted by Json.parse vs strict Jackson: %s", show(text))
                .isEqualTo(jackson.isPresent());
        if (ours.isPresent()) {
            assertThat(normal(ours.get())).as("value of %s", show(text)).isEqualTo(normal(jackson.get()));
        }
    }

    @Provide
    Arbitrary<String> documents() {
        Arbitrary<String> valid = values(4).map(Json::write);
        Arbitrary<String> mutated = valid.flatMap(doc -> Arbitraries.integers().between(0, doc.length())
                .flatMap(at -> Arbitraries.of(HOSTILE).flatMap(piece -> Arbitraries.integers().between(0, 2).map(how ->
                        switch (how) {
                            case 0 -> doc.substring(0, at) + piece + doc.substring(at);
                            case 1 -> at < doc.length() ? doc.substring(0, at) + doc.substring(at + 1) : doc + piece;
                            default -> at < doc.length() ? doc.substring(0, at) + piece + doc.substring(at + 1) : piece + doc;
                        }))));
        Arbitrary<String> deep = Arbitraries.integers().between(250, 260).flatMap(n -> Arbitraries.of("1", "", "{}", "[]")
                .map(inner -> "[".repeat(n) + inner + "]".repeat(n)));
        Arbitrary<String> numbers = Arbitraries.strings().withChars("0123456789-+.eE\u0663").ofMinLength(1).ofMaxLength(8);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, valid), net.jqwik.api.Tuple.of(6, mutated),
                net.jqwik.api.Tuple.of(1, deep), net.jqwik.api.Tuple.of(2, numbers));
    }

    private static Arbitrary<Object> values(int depth) {
        Arbitrary<Object> scalars = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(6).map(s -> (Object) s),
                Arbitraries.longs().map(l -> (Object) l),
                Arbitraries.bigDecimals().ofScale(3).map(d -> (Object) d),
                Arbitraries.of(true, false).map(b -> (Object) b),
                Arbitraries.just(null));
        if (depth == 0) {
            return scalars;
        }
        Arbitrary<Object> list = values(depth - 1).list().ofMaxSize(3).map(l -> (Object) l);
        Arbitrary<Object> map = Arbitraries.maps(Arbitraries.strings().alpha().ofMaxLength(3), values(depth - 1))
                .ofMaxSize(3).map(m -> (Object) new LinkedHashMap<>(m));
        return Arbitraries.oneOf(scalars, list, map);
    }

    private static Optional<Object> jackson(String text) {
        try {
            Object v = STRICT.readValue(text, Object.class);
            return Optional.of(v == null ? Json.NULL : v);
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /** Numbers as BigDecimal without trailing zeros, so 1, 1L and 1.0 compare alike. */
    private static Object normal(Object v) {
        if (v instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, x) -> out.put(k, normal(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(x -> out.add(normal(x)));
            return out;
        }
        if (v instanceof BigDecimal d) {
            return d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
        }
        if (v instanceof Integer || v instanceof Long || v instanceof BigInteger) {
            return normal(new BigDecimal(v.toString()));
        }
        return v;
    }

    private static String show(String text) {
        String s = text.length() > 120 ? text.substring(0, 120) + "…(" + text.length() + " chars)" : text;
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> b.append(c < 0x20 || (c >= 0x7f && c < 0xa0) ? String.format("\\u%04x", c)
                : new String(Character.toChars(c))));
        return b.toString();
    }
}
