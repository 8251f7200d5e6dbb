package io.kvcacheinjector.app.reliability;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
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
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A fabric8 mock API server in CRUD mode that serves the four custom resources as {@code deploy/crds} declares them,
 * for a {@code serve} child process to watch through a kubeconfig. It can be stopped (every watch drops and every
 * request fails) and started again on the same port with the objects it held, as an API server restart.
 */
final class MockApiServer implements AutoCloseable {
    private final Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    /** A group whose requests answer 404, as a real API server does for a group no installed CRD defines. */
    private volatile String unservedGroup;
    private final AtomicInteger unservedRequests = new AtomicInteger();
    private final KubernetesMixedDispatcher dispatcher = new KubernetesMixedDispatcher(responses, crdContexts()) {
        @Override
        public MockResponse dispatch(RecordedRequest request) {
            String group = unservedGroup;
            if (group != null && request.getPath().startsWith("/apis/" + group + "/")) {
                unservedRequests.incrementAndGet();
                // kube-apiserver's answer for a path no API group serves: plain text, no Status object
                return new MockResponse().setResponseCode(404).setHeader("Content-Type", "text/plain; charset=utf-8")
                        .setBody("404 page not found\n");
            }
            return super.dispatch(request);
        }
    };
    private KubernetesMockServer server;
    private final int port;
    private final KubernetesClient client;
    private volatile boolean up;

    MockApiServer() {
        server = newServer();
        server.start();
        port = server.getPort();
        up = true;
        client = server.createClient();
    }

    private KubernetesMockServer newServer() {
        return new KubernetesMockServer(new Context(), new MockWebServer(), responses, dispatcher, false);
    }

    /** A kubeconfig pointing at this server (plain HTTP on loopback), written into {@code dir}. */
    Path kubeconfig(Path dir) throws IOException {
        Path file = dir.resolve("kubeconfig.yaml");
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters:
                  - name: mock
                    cluster:
                      server: http://127.0.0.1:%d
                contexts:
                  - name: mock
                    context:
                      cluster: mock
                      user: test
                      namespace: default
                current-context: mock
                users:
                  - name: test
                    user:
                      token: test
                """.formatted(port));
        return file;
    }

    /** Stops the server: every open watch drops and every request fails until {@link #restart()}. */
    synchronized void stop() {
        up = false;
        server.shutdown();
    }

    /** Starts the server again on the same port, with the objects it held. */
    synchronized void restart() {
        server = newServer();
        server.start(port);
        up = true;
    }

    boolean up() {
        return up;
    }

    /** From now on the API server does not serve {@code group} (its CRDs are deleted; the objects are kept). */
    void unserve(String group) {
        unservedGroup = group;
    }

    /** Serves every group again (the CRDs are installed again). */
    void serveAllGroups() {
        unservedGroup = null;
    }

    /** How many requests were answered 404 because their group was not served. */
    int unservedRequests() {
        return unservedRequests.get();
    }

    /** Creates every object of a known kind found in the YAML/JSON manifests of {@code dir}. */
    void load(Path dir) {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().matches(".*\\.(ya?ml|json)$")).sorted().toList()) {
                try (MappingIterator<Object> docs = yaml.readerFor(Object.class).readValues(file.toFile())) {
                    for (Object doc : docs.readAll()) {
                        if (doc instanceof Map<?, ?> m) {
                            @SuppressWarnings("unchecked")
                            Map<String, Object> object = (Map<String, Object>) m;
                            create(object);
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Creates (or replaces) one object, its status written through the status subresource as a controller would. */
    GenericKubernetesResource create(Map<String, Object> object) {
        ClusterKind kind = ClusterKind.ofKind(String.valueOf(object.get("kind"))).orElseThrow(
                () -> new IllegalArgumentException("not a kind the webhook reads: " + object.get("kind")));
        GenericKubernetesResource resource = client.getKubernetesSerialization().convertValue(object,
                GenericKubernetesResource.class);
        var op = resources(kind, resource.getMetadata().getNamespace());
        GenericKubernetesResource existing = op.withName(resource.getMetadata().getName()).get();
        GenericKubernetesResource written;
        if (existing == null) {
            written = op.resource(resource).create();
        } else {
            resource.getMetadata().setResourceVersion(existing.getMetadata().getResourceVersion());
            written = op.resource(resource).update();
        }
        if (object.get("status") != null) {
            written.setAdditionalProperty("status", object.get("status"));
            written = op.resource(written).updateStatus();
        }
        return written;
    }

    /** Deletes one object; true when it existed. */
    boolean delete(ClusterKind kind, String namespace, String name) {
        return !resources(kind, namespace).withName(name).delete().isEmpty();
    }

    private io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<GenericKubernetesResource,
            io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
            io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>> resources(ClusterKind kind,
                                                                                            String namespace) {
        var all = client.genericKubernetesResources(context(kind));
        return kind.namespaced() ? all.inNamespace(namespace) : all;
    }

    private static ResourceDefinitionContext context(ClusterKind kind) {
        return new ResourceDefinitionContext.Builder().withGroup(kind.group()).withVersion(kind.version())
                .withKind(kind.kind()).withPlural(kind.plural()).withNamespaced(kind.namespaced()).build();
    }

    private static List<CustomResourceDefinitionContext> crdContexts() {
        Path dir = Path.of("..", "deploy", "crds");
        KubernetesSerialization serialization = new KubernetesSerialization();
        try (Stream<Path> files = Files.list(dir)) {
            List<CustomResourceDefinitionContext> contexts = new ArrayList<>();
            for (Path f : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                contexts.add(CustomResourceDefinitionContext.fromCrd(serialization.unmarshal(Files.readString(f),
                        CustomResourceDefinition.class)));
            }
            return contexts;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() {
        client.close();
        if (up) {
            server.shutdown();
        }
    }
}
