package io.kvcacheinjector.domain.cacheblend.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.cacheblend.CacheBlendKeys;
import io.kvcacheinjector.domain.json.IndentedJson;
import io.kvcacheinjector.domain.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The golden files of the engine rendering: one folder per case under {@code src/test/resources/engine-render},
 * holding {@code engine.json} (the CacheBlendEngine), an optional {@code context.json}
 * ({@code serviceMonitorServed}, {@code respAuthData}) and exactly one expected answer: {@code children.json} (the
 * children in apply order) or {@code invalid.txt} (the validation message). When the case has
 * {@code kv-transfer-config.json}, the ConfigMap's value must equal it byte for byte. Regenerate with
 * {@code -Dgolden.update=true} and review the diff.
 */
class EngineRenderingGoldenTest {
    private static final Path ROOT = Path.of("src/test/resources/engine-render");
    private static final boolean UPDATE = Boolean.getBoolean("golden.update");

    @TestFactory
    Stream<DynamicTest> everyCaseRendersAsRecorded() throws IOException {
        List<Path> cases;
        try (Stream<Path> s = Files.list(ROOT)) {
            cases = s.filter(Files::isDirectory).sorted().toList();
        }
        assertThat(cases).hasSizeGreaterThanOrEqualTo(10);
        return cases.stream().map(dir -> DynamicTest.dynamicTest(dir.getFileName().toString(), () -> check(dir)));
    }

    private static void check(Path dir) throws IOException {
        Map<String, Object> engine = object(dir.resolve("engine.json"));
        RenderContext context = context(dir.resolve("context.json"));
        Path childrenFile = dir.resolve("children.json");
        Path invalidFile = dir.resolve("invalid.txt");
        assertThat(UPDATE || Files.exists(childrenFile) ^ Files.exists(invalidFile))
                .as("%s holds exactly one of children.json and invalid.txt", dir).isTrue();
        EngineRendering.Outcome outcome = EngineRendering.render(engine, "default", context);
        switch (outcome) {
            case EngineRendering.Rendered r -> {
                String actual = IndentedJson.write(r.children()) + "\n";
                if (UPDATE) {
                    Files.deleteIfExists(invalidFile);
                    Files.writeString(childrenFile, actual);
                }
                assertThat(Files.exists(childrenFile)).as("%s renders children but expects invalid.txt", dir).isTrue();
                assertThat(actual).isEqualTo(Files.readString(childrenFile));
                Path kvFile = dir.resolve("kv-transfer-config.json");
                if (Files.exists(kvFile)) {
                    assertThat(connection(r.children())).isEqualTo(Files.readString(kvFile).stripTrailing());
                }
            }
            case EngineRendering.Invalid i -> {
                if (UPDATE) {
                    Files.deleteIfExists(childrenFile);
                    Files.writeString(invalidFile, i.message() + "\n");
                }
                assertThat(Files.exists(invalidFile)).as("%s is invalid: %s", dir, i.message()).isTrue();
                assertThat(i.message() + "\n").isEqualTo(Files.readString(invalidFile));
            }
        }
    }

    @Test
    void theConnectionJsonIsSortedIndentedWithThePortAsAString() {
        EngineRendering.Rendered r = (EngineRendering.Rendered) EngineRendering.render(seed(), "x",
                RenderContext.offline());
        assertThat(connection(r.children())).isEqualTo("""
                {
                  "kv_connector": "CBKVConnector",
                  "kv_connector_extra_config": {
                    "cb.check_layer": 1,
                    "cb.recomp_ratio": 0.15,
                    "lmcache.mp.host": "tcp://tensormesh-cacheblend.tensormesh-operator.svc.cluster.local",
                    "lmcache.mp.port": "5555"
                  },
                  "kv_connector_module_path": "lmcache_cacheblend.connector",
                  "kv_role": "kv_both"
                }""");
    }

    @Test
    void anInvalidEngineRendersNoChildrenAndItsMessageNamesTheEngineTheFieldAndTheFix() {
        Map<String, Object> engine = seed();
        @SuppressWarnings("unchecked")
        Map<String, Object> blend = (Map<String, Object>) ((Map<String, Object>) engine.get("spec"))
                .computeIfAbsent("blend", k -> new java.util.LinkedHashMap<>());
        blend.put("recompRatio", 0L);
        EngineRendering.Outcome o = EngineRendering.render(engine, "x", RenderContext.offline());
        assertThat(o).isInstanceOf(EngineRendering.Invalid.class);
        assertThat(((EngineRendering.Invalid) o).message())
                .contains("CacheBlendEngine tensormesh-operator/tensormesh-cacheblend")
                .contains("spec.blend.recompRatio is 0 but must be a number in (0, 1]")
                .contains("Fix the spec");
    }

    @Test
    void goFloatsPrintLikeGo() {
        assertThat(IndentedJson.goFloat(1.0)).isEqualTo("1");
        assertThat(IndentedJson.goFloat(0.15)).isEqualTo("0.15");
        assertThat(IndentedJson.goFloat(1e-7)).isEqualTo("1e-7");
        assertThat(IndentedJson.goFloat(2.5e-7)).isEqualTo("2.5e-7");
        assertThat(IndentedJson.goFloat(0.000001)).isEqualTo("0.000001");
        assertThat(IndentedJson.goFloat(200)).isEqualTo("200");
    }

    private static Map<String, Object> seed() {
        return object(ROOT.resolve("seed-my-values/engine.json"));
    }

    @SuppressWarnings("unchecked")
    private static String connection(List<Map<String, Object>> children) {
        return children.stream().filter(c -> "ConfigMap".equals(c.get("kind")))
                .map(c -> (String) ((Map<String, Object>) c.get("data")).get(CacheBlendKeys.CONNECTION_KEY))
                .findFirst().orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Path file) {
        try {
            return (Map<String, Object>) Json.parse(Files.readString(file, StandardCharsets.UTF_8))
                    .orElseThrow(() -> new AssertionError(file + " is not JSON"));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static RenderContext context(Path file) {
        if (!Files.exists(file)) {
            return RenderContext.offline();
        }
        Map<String, Object> c = object(file);
        return new RenderContext(Boolean.TRUE.equals(c.get("serviceMonitorServed")),
                Optional.ofNullable((Map<String, String>) c.get("respAuthData")));
    }
}
