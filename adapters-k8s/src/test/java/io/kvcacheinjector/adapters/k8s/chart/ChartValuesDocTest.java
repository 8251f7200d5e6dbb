package io.kvcacheinjector.adapters.k8s.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/reference/chart-values.md documents every value of values.yaml, with its default. */
class ChartValuesDocTest {
    private static final Pattern ROW = Pattern.compile("^\\| `([^`]+)` \\| `([^`]*)` \\|", Pattern.MULTILINE);

    @Test
    void everyValueIsDocumentedWithItsDefault() throws IOException {
        Map<String, Object> values = new ObjectMapper(new YAMLFactory()).readValue(
                RenderedChart.chartDir().resolve("values.yaml").toFile(), LinkedHashMap.class);
        Map<String, String> leaves = new LinkedHashMap<>();
        leaves("", values, leaves);
        assertThat(leaves).hasSizeGreaterThan(30);

        String doc = Files.readString(RenderedChart.repoRoot().resolve("docs/reference/chart-values.md"));
        Map<String, String> documented = new LinkedHashMap<>();
        Matcher row = ROW.matcher(doc);
        while (row.find()) {
            documented.put(row.group(1), row.group(2));
        }
        assertThat(documented).as("documented defaults in docs/reference/chart-values.md").containsAllEntriesOf(leaves);
        assertThat(leaves.keySet()).as("no documented value that values.yaml lacks")
                .containsAll(documented.keySet().stream().filter(k -> !k.startsWith("-")).toList());
    }

    @SuppressWarnings("unchecked")
    private static void leaves(String prefix, Map<String, Object> map, Map<String, String> out) {
        map.forEach((key, value) -> {
            String path = prefix.isEmpty() ? key : prefix + "." + key;
            if (value instanceof Map<?, ?> m && !m.isEmpty()) {
                leaves(path, (Map<String, Object>) m, out);
            } else {
                out.put(path, rendered(value));
            }
        });
    }

    private static String rendered(Object value) {
        if (value instanceof Map<?, ?>) {
            return "{}";
        }
        if (value instanceof List<?> l && l.isEmpty()) {
            return "[]";
        }
        if (value instanceof String s) {
            return s.isEmpty() || s.matches("[0-9.]+|true|false") ? "\"" + s + "\"" : s;
        }
        return String.valueOf(value);
    }
}
