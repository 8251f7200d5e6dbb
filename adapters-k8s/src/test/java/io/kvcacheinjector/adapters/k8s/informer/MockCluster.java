package io.kvcacheinjector.adapters.k8s.informer;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/**
 * A fabric8 mock API server in CRUD mode that knows the four custom resources, can be loaded with the objects of
 * a fixture directory, and can be stopped and started again on the same port with the same state (an API server
 * restart: every watch drops). {@link #withoutGroup} makes one whose API server does not serve an API group, as a
 * cluster where that group's CRDs are not installed; it records the path of every request.
 */
final class MockCluster implements AutoCloseable {
    private final Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    private final List<String> requestPaths = new CopyOnWriteArrayList<>();
    /** The custom resources as deploy/crds declares them (scope, status subresource). */
    private final KubernetesMixedDispatcher dispatcher;
    private KubernetesMockServer server;
    private int port;
    private final KubernetesClient client;

    MockCluster() {
        this(Optional.empty());
    }

    /**
     * A cluster whose API server answers every request under {@code /apis/<group>/} with a 404, as a real one does
     * for a group no installed CRD defines.
     */
    static MockCluster withoutGroup(String group) {
        return new MockCluster(Optional.of(group));
    }

    private MockCluster(Optional<String> unservedGroup) {
        String unserved = unservedGroup.map(g -> "/apis/" + g + "/").orElse(null);
        List<CustomResourceDefinitionContext> crds = crdContexts().stream()
                .filter(c -> unservedGroup.map(g -> !g.equals(c.getGroup())).orElse(true)).toList();
        dispatcher = new KubernetesMixedDispatcher(responses, crds) {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                requestPaths.add(request.getPath());
                if (unserved != null && request.getPath().startsWith(unserved)) {
                    return new MockResponse().setResponseCode(404).setHeader("Content-Type", "application/json")
                            .setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                                    + "\"message\":\"the server could not find the requested resource\","
                                    + "\"reason\":\"NotFound\",\"details\":{},\"code\":404}");
                }
                return super.dispatch(request);
            }
        };
        server = newServer();
        server.start();
        port = server.getPort();
        client = server.createClient();
    }

    private static List<CustomResourceDefinitionContext> crdContexts() {
        Path dir = Path.of(System.getProperty("kvcache.crds.dir", "../deploy/crds"));
        var serialization = new io.fabric8.kubernetes.client.utils.KubernetesSerialization();
        try (Stream<Path> files = Files.list(dir)) {
            List<CustomResourceDefinitionContext> contexts = new ArrayList<>();
            for (Path f : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                contexts.add(CustomResourceDefinitionContext.fromCrd(serialization.unmarshal(Files.readString(f),
                        CustomResourceDefinition.class)));
            }
            if (contexts.size() != 4) {
                throw new IllegalStateException("expected the 4 CRDs in " + dir + ", found " + contexts.size());
            }
            return contexts;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private KubernetesMockServer newServer() {
        return new KubernetesMockServer(new Context(), new MockWebServer(), responses, dispatcher, false);
    }

    KubernetesMockServer server() {
        return server;
    }

    KubernetesClient client() {
        return client;
    }

    int requestCount() {
        return server.getRequestCount();
    }

    /** The path (with query) of every request this cluster has answered, in order. */
    List<String> requestPaths() {
        return List.copyOf(requestPaths);
    }

    /** Stops the API server: every open watch drops and every request fails until {@link #restart()}. */
    void stop() {
        server.shutdown();
    }

    /** Starts the API server again on the same port, with the objects it held. */
    void restart() {
        server = newServer();
        server.start(port);
    }

    /** Creates every object of a known kind found in the manifests under {@code dir}, status included. */
    void load(Path dir) {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.filter(f -> f.toString().matches(".*\\.(ya?ml|json)$"))
                    .filter(f -> !dir.relativize(f).toString().startsWith(".")).sorted().toList()) {
                try (MappingIterator<Object> docs = yaml.readerFor(Object.class).readValues(file.toFile())) {
                    for (Object doc : docs.readAll()) {
                        for (Map<String, Object> object : objects(doc)) {
                            create(object);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> objects(Object doc) {
        List<Map<String, Object>> out = new ArrayList<>();
        if (doc instanceof Map<?, ?> m) {
            if (m.get("items") instanceof List<?> items) {
                items.forEach(i -> out.add((Map<String, Object>) i));
            } else {
                out.add((Map<String, Object>) m);
            }
        }
        return out;
    }

    /**
     * Creates one object as the API server would end up holding it: the status written through the status
     * subresource, and a {@code deletionTimestamp} produced by deleting an object that has a finalizer.
     */
    @SuppressWarnings("unchecked")
    GenericKubernetesResource create(Map<String, Object> object) {
        ClusterKind kind = ClusterKind.ofKind(String.valueOf(object.get("kind"))).orElse(null);
        if (kind == null) {
            return null;
        }
        Map<String, Object> metadata = (Map<String, Object>) object.get("metadata");
        boolean terminating = metadata.remove("deletionTimestamp") != null;
        GenericKubernetesResource resource = client.getKubernetesSerialization().convertValue(object,
                GenericKubernetesResource.class);
        var resources = client.genericKubernetesResources(WatchedKind.context(kind));
        var op = kind.namespaced() ? resources.inNamespace(resource.getMetadata().getNamespace()) : resources;
        GenericKubernetesResource created = op.resource(resource).create();
        if (object.get("status") != null && created.get("status") == null) {
            created.setAdditionalProperty("status", object.get("status"));
            created = op.resource(created).updateStatus();
        }
        if (terminating) {
            op.resource(created).delete();
        }
        return created;
    }

    @Override
    public void close() {
        client.close();
        server.shutdown();
    }
}
