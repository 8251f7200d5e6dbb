package io.kvcacheinjector.domain.cacheblend;

import java.util.List;
import java.util.stream.Collectors;

/** How messages show values from the Pod: double-quoted, with quotes, backslashes and control characters escaped. */
final class Quoting {
    private Quoting() {
    }

    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (Character.isISOControl(c) || c == 0x2028 || c == 0x2029) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /** Each value quoted, joined with {@code ", "}; {@code none} for an empty list. */
    static String quoteAll(List<String> values) {
        if (values.isEmpty()) {
            return "none";
        }
        return values.stream().map(Quoting::quote).collect(Collectors.joining(", "));
    }
}
