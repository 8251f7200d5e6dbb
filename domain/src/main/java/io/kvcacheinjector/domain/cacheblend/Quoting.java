package io.kvcacheinjector.domain.cacheblend;

import io.kvcacheinjector.domain.text.MessageText;
import static io.kvcacheinjector.domain.text.MessageText.quote;
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
        return values.stream().map(MessageText::quote).collect(Collectors.joining(", "));
    }
}
