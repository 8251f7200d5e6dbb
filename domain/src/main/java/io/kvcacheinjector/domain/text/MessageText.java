package io.kvcacheinjector.domain.text;

/**
 * How every message shows a value taken from the Pod (docs/reference/refusal-codes.md): double-quoted, with quotes,
 * backslashes and every control character (C0, DEL, C1, U+2028, U+2029) escaped, so stray whitespace is visible and a
 * message stays one paragraph.
 */
public final class MessageText {
    private MessageText() {
    }

    /** {@code s} in double quotes, escaped. */
    public static String quote(String s) {
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
}
