package io.kvcacheinjector.app.render;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.kvcacheinjector.domain.cacheblend.engine.EngineRendering;
import io.kvcacheinjector.domain.cacheblend.engine.RenderContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code render-engine}: the children the controller would apply, as YAML, from a YAML or JSON engine. */
class RenderEngineCommandTest {
    private static final Path EXAMPLE = Path.of("..", "docs", "examples", "cacheblend", "engine.yaml");
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int render(String stdin, String... args) throws Exception {
        return RenderEngineCommand.run(args, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private List<Map<String, Object>> documents() throws Exception {
        List<Map<String, Object>> docs = new ArrayList<>();
        try (var it = new YAMLMapper().readerFor(Map.class).<Map<String, Object>>readValues(out.toByteArray())) {
            while (it.hasNextValue()) {
                docs.add(it.nextValue());
            }
        }
        return docs;
    }

    @Test
    @SuppressWarnings("unchecked")
    void printsExactlyTheChildrenTheControllerAppliesInApplyOrder() throws Exception {
        assertThat(render("", "-f", EXAMPLE.toString())).isZero();
        List<Map<String, Object>> docs = documents();
        assertThat(docs).extracting(d -> d.get("kind") + " " + ((Map<String, Object>) d.get("metadata")).get("name"))
                .containsExactly("DaemonSet tensormesh-cacheblend", "Service tensormesh-cacheblend",
                        "Service tensormesh-cacheblend-metrics", "ConfigMap tensormesh-cacheblend-connection");
        Map<String, Object> engine = new YAMLMapper().readValue(EXAMPLE.toFile(), Map.class);
        EngineRendering.Rendered expected = (EngineRendering.Rendered) EngineRendering.render(
                new ObjectMapper().convertValue(engine, Map.class), "default", RenderContext.offline());
        ObjectMapper json = new ObjectMapper();
        assertThat(json.writeValueAsString(docs)).isEqualTo(json.writeValueAsString(expected.children()));
        String kv = (String) ((Map<String, Object>) docs.get(3).get("data")).get("kv-transfer-config.json");
        assertThat(kv).startsWith("{\n  \"kv_connector\": \"CBKVConnector\",\n").endsWith("\n}")
                .contains("\"lmcache.mp.port\": \"5555\"");
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void readsJsonFromStdinAndAddsTheServiceMonitorOnlyWhenItsCrdIsServed() throws Exception {
        String engine = """
                {"apiVersion": "lmcache.lmcache.ai/v1alpha1", "kind": "CacheBlendEngine", "metadata": {"name": "cb"},
                 "spec": {"l1": {"sizeGB": 60}, "prometheus": {"serviceMonitor": {"enabled": true}},
                          "injection": {"payloadImage": {"repository": "p"}}}}""";
        assertThat(render(engine, "-f", "-", "--namespace", "team-a")).isZero();
        assertThat(documents()).extracting(d -> d.get("kind")).doesNotContain("ServiceMonitor");
        out.reset();
        assertThat(render(engine, "-f", "-", "--namespace", "team-a", "--servicemonitor-crd")).isZero();
        assertThat(documents()).extracting(d -> d.get("kind")).endsWith("ServiceMonitor");
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("namespace: team-a");
    }

    @Test
    void anInvalidEngineExitsTwoWithTheValidationMessageAndPrintsNothing() throws Exception {
        String engine = """
                apiVersion: lmcache.lmcache.ai/v1alpha1
                kind: CacheBlendEngine
                metadata: {name: cb, namespace: ns}
                spec:
                  l1: {sizeGB: 0}
                  injection: {payloadImage: {repository: p}}
                """;
        assertThat(render(engine, "-f", "-")).isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("CacheBlendEngine ns/cb is invalid: spec.l1.sizeGB is 0 but must be a number > 0");
    }

    @Test
    void aFileWithoutAnEngineOrNotYamlIsExitTwoWithOneLine(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path pod = dir.resolve("pod.yaml");
        Files.writeString(pod, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n");
        assertThat(render("", "-f", pod.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("holds no CacheBlendEngine");
        err.reset();
        assertThat(render("{not: [yaml", "-f", "-")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("is not valid YAML or JSON");
        err.reset();
        assertThat(render("", "--bogus")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown option --bogus");
    }
}
