package io.kvcacheinjector.domain.json;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A small JSON reader and writer over plain Java values, so that the domain needs no JSON library.
 *
 * <p>Values are {@code Map<String,Object>} (insertion-ordered), {@code List<Object>}, {@code String},
 * {@code Long}, {@code BigDecimal}, {@code Boolean} and {@code null}. The writer is compact and
 * byte-stable: maps are written in their iteration order, so the same value gives the same bytes.
 */
public final class Json {
    /**
     * The deepest nesting of objects and arrays {@link #parse} accepts: the review reader's limit
     * ({@code AdmissionReviewReader.MAX_NESTING_DEPTH}), so both JSON boundaries of the webhook agree.
     */
    public static final int MAX_NESTING_DEPTH = 256;

    private Json() {
    }

    /** Writes {@code value} as compact JSON. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder(64);
        write(value, out);
        return out.toString();
    }

    /** Writes {@code value} as compact JSON onto {@code out}. */
    public static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String s) {
            quote(s, out);
        } else if (value instanceof Boolean b) {
            out.append(b.booleanValue());
        } else if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte
                || value instanceof BigInteger) {
            out.append(value);
        } else if (value instanceof BigDecimal d) {
            out.append(d.toString());
        } else if (value instanceof Number n) {
            double d = n.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new IllegalArgumentException("JSON has no representation for " + d);
            }
            out.append(d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d));
        } else if (value instanceof Map<?, ?> m) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                quote(String.valueOf(e.getKey()), out);
                out.append(':');
                write(e.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof List<?> l) {
            out.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(l.get(i), out);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value.getClass().getSimpleName());
        }
    }

    /** Appends {@code s} as a JSON string literal. */
    public static void quote(String s, StringBuilder out) {
        out.append('"');
        int n = s.length();
        int copied = 0; // s[copied, i) needs no escape and is appended in one piece
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                continue;
            }
            String escaped = switch (c) {
                case '"' -> "\\\"";
                case '\\' -> "\\\\";
                case '\n' -> "\\n";
                case '\r' -> "\\r";
                case '\t' -> "\\t";
                case '\b' -> "\\b";
                case '\f' -> "\\f";
                default -> {
                    // an unpaired surrogate has no UTF-8 form: escaped, it round-trips instead of becoming '?'
                    boolean escape = c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029
                            || unpaired(s, i);
                    yield escape ? String.format("\\u%04x", (int) c) : null;
                }
            };
            if (escaped != null) {
                out.append(s, copied, i).append(escaped);
                copied = i + 1;
            }
        }
        out.append(s, copied, n).append('"');
    }

    /** Whether {@code s.charAt(i)} is a surrogate that is not half of a high-low pair. */
    private static boolean unpaired(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
        }
        return false;
    }

    /** Returns {@code s} as a JSON string literal. */
    public static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2);
        quote(s, out);
        return out.toString();
    }

    /**
     * Parses one JSON text (RFC 8259) the way the review reader does: empty when the text is not exactly one
     * well-formed JSON value, with trailing text, duplicate object keys and more than {@link #MAX_NESTING_DEPTH}
     * nested containers rejected too. Integers of up to 18 characters are {@code Long}, other numbers
     * {@code BigDecimal}. Only ASCII digits count as digits. Tested against strict Jackson by
     * {@code JsonParseDifferentialProperties}.
     */
    public static Optional<Object> parse(String text) {
        Parser p = new Parser(text);
        try {
            p.skipWs();
            Object v = p.value(0);
            p.skipWs();
            if (p.pos != text.length()) {
                return Optional.empty();
            }
            return Optional.of(v == null ? NULL : v);
        } catch (Malformed e) {
            return Optional.empty();
        }
    }

    /** Stands for a top-level JSON {@code null} in {@link #parse}, since Optional cannot hold null. */
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    private static final class Malformed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Malformed() {
            super(null, null, false, false);
        }
    }

    private static final class Parser {
        private final String s;
        private int pos;

        Parser(String s) {
            this.s = s;
        }

        void skipWs() {
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                    pos++;
                } else {
                    return;
                }
            }
        }

        /** A value inside {@code depth} open containers. */
        Object value(int depth) {
            if (pos >= s.length()) {
                throw new Malformed();
            }
            char c = s.charAt(pos);
            return switch (c) {
                case '{' -> object(depth);
                case '[' -> array(depth);
                case '"' -> string();
                case 't' -> literal("true", Boolean.TRUE);
                case 'f' -> literal("false", Boolean.FALSE);
                case 'n' -> literal("null", null);
                default -> number();
            };
        }

        private Object literal(String word, Object v) {
            if (!s.startsWith(word, pos)) {
                throw new Malformed();
            }
            pos += word.length();
            return v;
        }

        private Map<String, Object> object(int depth) {
            enter(depth);
            Map<String, Object> m = new LinkedHashMap<>();
            skipWs();
            if (pos < s.length() && s.charAt(pos) == '}') {
                pos++;
                return m;
            }
            while (true) {
                skipWs();
                if (pos >= s.length() || s.charAt(pos) != '"') {
                    throw new Malformed();
                }
                String k = string();
                skipWs();
                expect(':');
                skipWs();
                Object v = value(depth + 1);
                if (m.containsKey(k)) {
                    throw new Malformed();
                }
                m.put(k, v);
                skipWs();
                if (pos >= s.length()) {
                    throw new Malformed();
                }
                char c = s.charAt(pos++);
                if (c == '}') {
                    return m;
                }
                if (c != ',') {
                    throw new Malformed();
                }
            }
        }

        private List<Object> array(int depth) {
            enter(depth);
            List<Object> l = new ArrayList<>();
            skipWs();
            if (pos < s.length() && s.charAt(pos) == ']') {
                pos++;
                return l;
            }
            while (true) {
                skipWs();
                l.add(value(depth + 1));
                skipWs();
                if (pos >= s.length()) {
                    throw new Malformed();
                }
                char c = s.charAt(pos++);
                if (c == ']') {
                    return l;
                }
                if (c != ',') {
                    throw new Malformed();
                }
            }
        }

        /** Opens a container inside {@code depth} others: at most {@link #MAX_NESTING_DEPTH} in all. */
        private void enter(int depth) {
            if (depth + 1 > MAX_NESTING_DEPTH) {
                throw new Malformed();
            }
            pos++;
        }

        private static boolean isDigit(char c) {
            return c >= '0' && c <= '9';
        }

        private static int hex(char c) {
            if (c >= '0' && c <= '9') {
                return c - '0';
            }
            if (c >= 'a' && c <= 'f') {
                return c - 'a' + 10;
            }
            if (c >= 'A' && c <= 'F') {
                return c - 'A' + 10;
            }
            throw new Malformed();
        }

        private void expect(char c) {
            if (pos >= s.length() || s.charAt(pos) != c) {
                throw new Malformed();
            }
            pos++;
        }

        private String string() {
            pos++;
            StringBuilder b = null;
            int start = pos;
            while (true) {
                if (pos >= s.length()) {
                    throw new Malformed();
                }
                char c = s.charAt(pos);
                if (c == '"') {
                    String out = b == null ? s.substring(start, pos) : b.append(s, start, pos).toString();
                    pos++;
                    return out;
                }
                if (c < 0x20) {
                    throw new Malformed();
                }
                if (c == '\\') {
                    if (b == null) {
                        b = new StringBuilder();
                    }
                    b.append(s, start, pos);
                    pos++;
                    if (pos >= s.length()) {
                        throw new Malformed();
                    }
                    char e = s.charAt(pos++);
                    switch (e) {
                        case '"' -> b.append('"');
                        case '\\' -> b.append('\\');
                        case '/' -> b.append('/');
                        case 'b' -> b.append('\b');
                        case 'f' -> b.append('\f');
                        case 'n' -> b.append('\n');
                        case 'r' -> b.append('\r');
                        case 't' -> b.append('\t');
                        case 'u' -> {
                            if (pos + 4 > s.length()) {
                                throw new Malformed();
                            }
                            int code = 0;
                            for (int i = 0; i < 4; i++) {
                                code = code * 16 + hex(s.charAt(pos + i));
                            }
                            b.append((char) code);
                            pos += 4;
                        }
                        default -> throw new Malformed();
                    }
                    start = pos;
                } else {
                    pos++;
                }
            }
        }

        private Object number() {
            int start = pos;
            if (pos < s.length() && s.charAt(pos) == '-') {
                pos++;
            }
            int digits = pos;
            while (pos < s.length() && isDigit(s.charAt(pos))) {
                pos++;
            }
            if (pos == digits || (s.charAt(digits) == '0' && pos - digits > 1)) {
                throw new Malformed();
            }
            boolean integral = true;
            if (pos < s.length() && s.charAt(pos) == '.') {
                integral = false;
                pos++;
                int f = pos;
                while (pos < s.length() && isDigit(s.charAt(pos))) {
                    pos++;
                }
                if (pos == f) {
                    throw new Malformed();
                }
            }
            if (pos < s.length() && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
                integral = false;
                pos++;
                if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) {
                    pos++;
                }
                int e = pos;
                while (pos < s.length() && isDigit(s.charAt(pos))) {
                    pos++;
                }
                if (pos == e) {
                    throw new Malformed();
                }
            }
            String t = s.substring(start, pos);
            if (integral && pos - start <= 18) {
                return Long.parseLong(t);
            }
            try {
                return new BigDecimal(t);
            } catch (NumberFormatException e) {
                // an exponent beyond BigDecimal's range ("1e99999999999"): not a number this reader can hold
                throw new Malformed();
            }
        }
    }

    /** An unmodifiable, insertion-ordered map built from alternating keys and values. */
    public static Map<String, Object> object(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return Collections.unmodifiableMap(m);
    }
}
