package io.kvcacheinjector.adapters.k8s.faults;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.StatusBuilder;
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
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A fabric8 mock API server in CRUD mode (the four custom resources as {@code deploy/crds} declares them) with fault
 * injection: it can be stopped and restarted on the same port with its objects (every watch drops), and requests
 * whose path starts with a prefix can be answered with an HTTP error or held before their body is sent.
 */
final class FaultyApiServer implements AutoCloseable {
    private final Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    private final FaultInjectingDispatcher dispatcher = new FaultInjectingDispatcher(responses, crdContexts());
    private KubernetesMockServer server;
    private final int port;
    private final KubernetesClient client;

    /** Answers from the fault when it has one for the request, otherwise from the CRUD store. */
    private static final class FaultInjectingDispatcher extends KubernetesMixedDispatcher {
        private volatile Function<RecordedRequest, Optional<MockResponse>> fault = r -> Optional.empty();
        private final AtomicInteger faulted = new AtomicInteger();

        FaultInjectingDispatcher(Map<ServerRequest, Queue<ServerResponse>> responses,
                                 List<CustomResourceDefinitionContext> crds) {
            super(responses, crds);
        }

        private final java.util.Queue<String> paths = new java.util.concurrent.ConcurrentLinkedQueue<>();

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            paths.add(request.getPath());
            Optional<MockResponse> injected = fault.apply(request);
            if (injected.isPresent()) {
                faulted.incrementAndGet();
                return injected.get();
            }
            return super.dispatch(request);
        }
    }

    FaultyApiServer() {
        server = newServer();
        server.start();
        port = server.getPort();
        client = server.createClient();
    }

    private KubernetesMockServer newServer() {
        return new KubernetesMockServer(new Context(), new MockWebServer(), responses, dispatcher, false);
    }

    KubernetesClient client() {
        return client;
    }

    /** Stops the server: every open watch drops and every request fails until {@link #restart()}. */
    void stop() {
        server.shutdown();
    }

    /** Starts the server again on the same port, with the objects it held. */
    void restart() {
        server = newServer();
        server.start(port);
    }

    /** From now on, requests whose path starts with {@code pathPrefix} are answered {@code code} with a Status. */
    void refuse(String pathPrefix, int code, String reason) {
        String body = client.getKubernetesSerialization().asJson(new StatusBuilder().withStatus("Failure")
                .withCode(code).withReason(reason).withMessage(pathPrefix + " is " + reason.toLowerCase()
                        + " (injected fault)").build());
        dispatcher.fault = r -> r.getPath().startsWith(pathPrefix)
                ? Optional.of(new MockResponse().setResponseCode(code).setHeader("Content-Type", "application/json")
                .setBody(body))
                : Optional.empty();
    }

    /** From now on, requests whose path starts with {@code pathPrefix} get their body only after {@code delay}. */
    void hold(String pathPrefix, Duration delay) {
        dispatcher.fault = r -> r.getPath().startsWith(pathPrefix)
                ? Optional.of(new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json")
                .setBody("{}").setBodyDelay(delay))
                : Optional.empty();
    }

    /**
     * The next watch of {@code pathPrefix} is opened and, after {@code after}, closed normally (no event, a close
     * frame), as an API server ends every watch when its {@code timeoutSeconds} run out; the client then watches
     * again. Later requests are served normally.
     */
    void endNextWatch(String pathPrefix, Duration after) {
        AtomicInteger left = new AtomicInteger(1);
        dispatcher.fault = r -> r.getPath().startsWith(pathPrefix) && r.getPath().contains("watch=true")
                && left.getAndDecrement() > 0
                ? Optional.of(new MockResponse().withWebSocketUpgrade(new WebSocketListener() {
                    @Override
                    public void onOpen(WebSocket socket, Response response) {
                        CompletableFuture.delayedExecutor(after.toMillis(), TimeUnit.MILLISECONDS)
                                .execute(() -> socket.close(1000, "watch timeout"));
                    }
                }))
                : Optional.empty();
    }

    /** How many requests whose path starts with {@code pathPrefix} the server has seen. */
    long seen(String pathPrefix) {
        return dispatcher.paths.stream().filter(p -> p.startsWith(pathPrefix)).count();
    }

    /** Removes the fault. */
    void heal() {
        dispatcher.fault = r -> Optional.empty();
    }

    /** How many requests the fault answered. */
    int faulted() {
        return dispatcher.faulted.get();
    }

    /** Creates one object (status included, as a controller writes it through the status subresource). */
    GenericKubernetesResource create(Map<String, Object> object) {
        ClusterKind kind = ClusterKind.ofKind(String.valueOf(object.get("kind"))).orElseThrow();
        GenericKubernetesResource resource = client.getKubernetesSerialization().convertValue(object,
                GenericKubernetesResource.class);
        var all = client.genericKubernetesResources(context(kind));
        var op = kind.namespaced() ? all.inNamespace(resource.getMetadata().getNamespace()) : all;
        GenericKubernetesResource created = op.resource(resource).create();
        if (object.get("status") != null) {
            created.setAdditionalProperty("status", object.get("status"));
            created = op.resource(created).updateStatus();
        }
        return created;
    }

    static ResourceDefinitionContext context(ClusterKind kind) {
        return new ResourceDefinitionContext.Builder().withGroup(kind.group()).withVersion(kind.version())
                .withKind(kind.kind()).withPlural(kind.plural()).withNamespaced(kind.namespaced()).build();
    }

    private static List<CustomResourceDefinitionContext> crdContexts() {
        Path dir = Path.of(System.getProperty("kvcache.crds.dir", "../deploy/crds"));
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
    public void close() {
        client.close();
        server.shutdown();
    }
}
