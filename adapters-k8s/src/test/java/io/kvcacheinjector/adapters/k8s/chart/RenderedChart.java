package io.kvcacheinjector.adapters.k8s.chart;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.util.HashMap;
import java.util.Queue;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** The chart under deploy/helm rendered by a real Helm (helm-java), as objects to assert on. */
final class RenderedChart {
    static final String RELEASE = "kvi";
    static final String NAMESPACE = "kvcache-system";
    static final String KUBE_VERSION = "1.31.0";
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private static KubernetesMockServer apiServer;
    private final String yaml;
    private final List<Map<String, Object>> objects;

    private RenderedChart(String yaml, List<Map<String, Object>> objects) {
        this.yaml = yaml;
        this.objects = objects;
    }

    static Path chartDir() {
        Path dir = Path.of(System.getProperty("kvcache.chart.dir", "../deploy/helm/kvcache-injector"));
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("chart not found at " + dir.toAbsolutePath());
        }
        return dir;
    }

    static Path repoRoot() {
        return chartDir().resolve("../../..").normalize();
    }

    /**
     * The API server Helm's {@code lookup} asks (the chart looks up its TLS Secret to keep it across upgrades):
     * a CRUD mock server, empty unless a test puts objects in it, as a fresh install would see.
     */
    static synchronized KubernetesMockServer apiServer() {
        if (apiServer == null) {
            Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
            apiServer = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                    new KubernetesMixedDispatcher(responses), true);
            apiServer.init();
            // discovery, which Helm's lookup needs to resolve v1 Secret (the CRUD dispatcher does not serve it)
            var discovery = new APIResourceListBuilder()
                    .withGroupVersion("v1")
                    .addNewResource().withName("secrets").withKind("Secret").withNamespaced(true)
                    .withSingularName("secret").withVerbs("get", "list", "watch", "create", "delete").endResource()
                    .build();
            for (String path : List.of("/api/v1", "/api/v1?timeout=32s")) {
                apiServer.expect().get().withPath(path).andReturn(200, discovery).always();
            }
            Path kubeconfig = Path.of(System.getProperty("kvcache.helm.kubeconfig"));
            try {
                Files.createDirectories(kubeconfig.getParent());
                Files.writeString(kubeconfig, """
                        apiVersion: v1
                        kind: Config
                        clusters:
                          - name: mock
                            cluster: {server: "%s", insecure-skip-tls-verify: true}
                        contexts:
                          - name: mock
                            context: {cluster: mock, namespace: %s}
                        current-context: mock
                        users: []
                        """.formatted(apiServer.url("/").replaceAll("/$", ""), NAMESPACE));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return apiServer;
    }

    /** Renders with the chart's defaults plus {@code values} (Helm --set syntax keys). */
    static RenderedChart render(Map<String, Object> values) {
        apiServer();
        TemplateCommand template = new Helm(chartDir()).template().withName(RELEASE).withNamespace(NAMESPACE)
                .withKubeVersion(KUBE_VERSION);
        values.forEach(template::set);
        return parse(template.call());
    }

    static RenderedChart render() {
        return render(Map.of());
    }

    static RenderedChart parse(String yaml) {
        List<Map<String, Object>> objects = new ArrayList<>();
        try (MappingIterator<Object> docs = new ObjectMapper(new YAMLFactory()).readerFor(Object.class).readValues(yaml)) {
            for (Object doc : docs.readAll()) {
                if (doc instanceof Map<?, ?> m) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> object = (Map<String, Object>) m;
                    objects.add(object);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new RenderedChart(yaml, objects);
    }

    String yaml() {
        return yaml;
    }

    List<String> kinds() {
        return objects.stream().map(o -> String.valueOf(o.get("kind"))).sorted().toList();
    }

    /** The only object of {@code kind} (and {@code name}, when given), as a fabric8 model object. */
    <T extends HasMetadata> T one(Class<T> type, String kind, String name) {
        List<Map<String, Object>> matches = objects.stream()
                .filter(o -> kind.equals(o.get("kind")))
                .filter(o -> name == null || name.equals(((Map<?, ?>) o.get("metadata")).get("name")))
                .toList();
        if (matches.size() != 1) {
            throw new AssertionError("expected one " + kind + " " + Objects.toString(name, "") + ", found "
                    + matches.size() + " in:\n" + yaml);
        }
        return SERIALIZATION.convertValue(matches.get(0), type);
    }

    <T extends HasMetadata> T one(Class<T> type, String kind) {
        return one(type, kind, null);
    }

    List<Map<String, Object>> all(String kind) {
        return objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
    }

    static Map<String, Object> values(Object... keyValues) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            values.put((String) keyValues[i], keyValues[i + 1]);
        }
        return values;
    }
}
