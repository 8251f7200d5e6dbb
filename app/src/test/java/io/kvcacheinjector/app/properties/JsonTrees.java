package io.kvcacheinjector.app.properties;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** Jackson, as the API server's JSON arrives and as the tests compare it. */
final class JsonTrees {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonTrees() {
    }

    /** The JSON text of a plain tree (maps, lists, scalars). */
    static String text(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode tree(Object value) {
        return MAPPER.valueToTree(value);
    }

    static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }

    /** The elements of a JSON array; none for anything else (absent, null). */
    static List<JsonNode> elements(JsonNode array) {
        List<JsonNode> out = new ArrayList<>();
        if (array != null && array.isArray()) {
            array.forEach(out::add);
        }
        return out;
    }

    /** A fresh plain tree equal to {@code value}, decoded from its JSON text as a request body would be. */
    static Object reparsed(Object value) {
        try {
            return MAPPER.readValue(text(value), Object.class);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
