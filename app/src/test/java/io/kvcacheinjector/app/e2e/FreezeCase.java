package io.kvcacheinjector.app.e2e;

import static io.kvcacheinjector.app.e2e.E2eObjects.CLIENT_CONFIG;
import static io.kvcacheinjector.app.e2e.E2eObjects.INJECTED;
import static io.kvcacheinjector.app.e2e.E2eObjects.LABEL;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * One UPDATE for the freeze to judge: a Pod's labels and annotations before and after (and whether it is
 * terminating, and its finalizers after), and for a golden case the codes the freeze must answer.
 */
record FreezeCase(String name, boolean terminating, Map<String, String> labelsBefore,
                  Map<String, String> annotationsBefore, Map<String, String> labelsAfter,
                  Map<String, String> annotationsAfter, Optional<List<String>> finalizersAfter,
                  Optional<List<String>> expectedCodes) {

    /** The golden cases of {@code ports/src/test/resources/testdata/freeze/cases.yaml} (KvCacheFreezeGoldenTest). */
    @SuppressWarnings("unchecked")
    static List<FreezeCase> golden(Path repo) throws IOException {
        Path file = repo.resolve("ports/src/test/resources/testdata/freeze/cases.yaml");
        Map<String, Object> yaml = new ObjectMapper(new YAMLFactory()).readValue(file.toFile(), Map.class);
        List<FreezeCase> cases = new ArrayList<>();
        for (Map<String, Object> c : (List<Map<String, Object>>) yaml.get("cases")) {
            Map<String, Object> before = (Map<String, Object>) c.get("before");
            Map<String, Object> after = (Map<String, Object>) c.get("after");
            cases.add(new FreezeCase((String) c.get("name"), Boolean.TRUE.equals(c.get("terminating")),
                    strings(before.get("labels")), strings(before.get("annotations")),
                    strings(after.get("labels")), strings(after.get("annotations")),
                    Optional.ofNullable((List<String>) after.get("finalizers")),
                    Optional.of((List<String>) c.get("codes"))));
        }
        return cases;
    }

    // The values the generator draws from: every state of the three frozen keys that matters to the rules (absent,
    // empty, the opt-in value and its near misses, two different records and configurations), and neighbours.
    private static final List<Optional<String>> OPT_IN = values(null, "true", "false", "True", "");
    private static final List<Optional<String>> RECORDS = values(null, "",
            "{\"binding\":\"chat\",\"engine\":\"vllm\",\"vehicle\":\"file\"}", "{\"binding\":\"forged\"}");
    private static final List<Optional<String>> CONFIGS = values(null, "{\"protocol\":\"rdma\"}",
            "{\"protocol\":\"tcp\"}");
    private static final List<Optional<String>> APP = values(null, "chat", "other");
    private static final List<Optional<String>> BINDING = values(null, "chat", "other");

    /**
     * {@code count} UPDATEs drawn with {@code seed}: each key before is any of its values (the label {@code "true"}
     * at least half of the time, so that most Pods are opted in); after, each key keeps its
     * value half of the time and is redrawn otherwise (so unchanged keys, changed keys and their combinations all
     * occur); a quarter of the Pods are terminating, and a quarter of the updates drop the finalizer.
     */
    static List<FreezeCase> generated(long seed, int count) {
        Random random = new Random(seed);
        List<FreezeCase> cases = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Optional<String> label = random.nextBoolean() ? Optional.of("true") : pick(random, OPT_IN);
            Optional<String> app = pick(random, APP);
            Optional<String> record = pick(random, RECORDS);
            Optional<String> config = pick(random, CONFIGS);
            Optional<String> binding = pick(random, BINDING);
            cases.add(new FreezeCase("gen-" + i, random.nextInt(4) == 0,
                    map(LABEL, label, "app", app),
                    map(INJECTED, record, CLIENT_CONFIG, config, "kvcache.gpustack.ai/binding", binding),
                    map(LABEL, maybe(random, label, OPT_IN), "app", maybe(random, app, APP)),
                    map(INJECTED, maybe(random, record, RECORDS), CLIENT_CONFIG, maybe(random, config, CONFIGS),
                            "kvcache.gpustack.ai/binding", maybe(random, binding, BINDING)),
                    random.nextInt(4) == 0 ? Optional.of(List.of()) : Optional.empty(),
                    Optional.empty()));
        }
        return cases;
    }

    private static Optional<String> maybe(Random random, Optional<String> before, List<Optional<String>> values) {
        return random.nextBoolean() ? before : pick(random, values);
    }

    private static Optional<String> pick(Random random, List<Optional<String>> values) {
        return values.get(random.nextInt(values.size()));
    }

    private static List<Optional<String>> values(String... values) {
        List<Optional<String>> out = new ArrayList<>();
        for (String v : values) {
            out.add(Optional.ofNullable(v));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> map(Object... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            String key = (String) keysAndValues[i];
            ((Optional<String>) keysAndValues[i + 1]).ifPresent(v -> map.put(key, v));
        }
        return map;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> strings(Object map) {
        return map == null ? Map.of() : new LinkedHashMap<>((Map<String, String>) map);
    }
}
