package io.kvcacheinjector.domain.json;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes plain Java values (as {@link Json} reads them) as indented JSON the way Go's
 * {@code json.MarshalIndent(v, "", "  ")} writes a generic map: object keys sorted, two spaces per level,
 * {@code "key": value}, empty objects and arrays as {@code {}} and {@code []}, and floating-point numbers in Go's
 * shortest form ({@code 1} for 1.0, {@code 0.15}, {@code 1e-7}). The upstream operator writes the CacheBlend
 * connection ConfigMap this way (docs/reference/cacheblend-engine.md).
 */
public final class IndentedJson {
    private IndentedJson() {
    }

    /** {@code value} as indented JSON with sorted keys. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder(256);
        write(value, out, 0);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out, int depth) {
        if (value instanceof Map<?, ?> m) {
            if (m.isEmpty()) {
                out.append("{}");
                return;
            }
            Map<String, Object> sorted = new TreeMap<>();
            m.forEach((k, v) -> sorted.put(String.valueOf(k), v));
            out.append("{\n");
            int i = 0;
            for (Map.Entry<String, Object> e : sorted.entrySet()) {
                indent(out, depth + 1);
                Json.quote(e.getKey(), out);
                out.append(": ");
                write(e.getValue(), out, depth + 1);
                out.append(++i < sorted.size() ? ",\n" : "\n");
            }
            indent(out, depth);
            out.append('}');
        } else if (value instanceof List<?> l) {
            if (l.isEmpty()) {
                out.append("[]");
                return;
            }
            out.append("[\n");
            for (int i = 0; i < l.size(); i++) {
                indent(out, depth + 1);
                write(l.get(i), out, depth + 1);
                out.append(i + 1 < l.size() ? ",\n" : "\n");
            }
            indent(out, depth);
            out.append(']');
        } else if (value instanceof Double || value instanceof Float || value instanceof BigDecimal) {
            out.append(goFloat(((Number) value).doubleValue()));
        } else if (value instanceof Integer || value instanceof Long || value instanceof BigInteger) {
            out.append(value);
        } else {
            Json.write(value, out);
        }
    }

    /** A float64 as Go's encoding/json prints it: shortest digits, exponent form below 1e-6 and from 1e21. */
    public static String goFloat(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new IllegalArgumentException("JSON has no representation for " + d);
        }
        if (d == 0) {
            return "0";
        }
        BigDecimal b = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        double abs = Math.abs(d);
        if (abs >= 1e-6 && abs < 1e21) {
            return b.toPlainString();
        }
        String digits = b.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - b.scale();
        StringBuilder s = new StringBuilder();
        if (d < 0) {
            s.append('-');
        }
        s.append(digits.charAt(0));
        if (digits.length() > 1) {
            s.append('.').append(digits, 1, digits.length());
        }
        s.append('e').append(exponent < 0 ? '-' : '+').append(Math.abs(exponent));
        return s.toString();
    }

    private static void indent(StringBuilder out, int depth) {
        out.append("  ".repeat(depth));
    }
}
