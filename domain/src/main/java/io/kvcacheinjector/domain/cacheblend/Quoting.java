package io.kvcacheinjector.domain.cacheblend;

import java.util.List;
import java.util.stream.Collectors;

/** How messages show values from the Pod: double-quoted, with quotes, backslashes and control characters escaped. */
final class Quoting {
    private Quoting() {
    }


    /** Each value quoted, joined with {@code ", "}; {@code none} for an empty list. */
    static String quoteAll(List<String> values) {
        if (values.isEmpty()) {
            return "none";
        }
        return values.stream().map(Quoting::quote).collect(Collectors.joining(", "));
    }

    /** Values from the Pod, as every message shows them ({@link io.kvcacheinjector.domain.MessageText#quote}). */
    static String quote(String s) {
        return io.kvcacheinjector.domain.MessageText.quote(s);
    }
}
