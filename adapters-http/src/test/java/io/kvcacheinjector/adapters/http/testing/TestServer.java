package io.kvcacheinjector.adapters.http.testing;

import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.adapters.http.server.ServerTls;
import io.kvcacheinjector.adapters.http.server.WebhookServer;
import io.kvcacheinjector.adapters.http.server.WebhookServerSettings;
import io.kvcacheinjector.adapters.http.telemetry.AdmissionMetrics;
import io.kvcacheinjector.adapters.http.telemetry.ContainerMemoryLimit;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.adapters.http.telemetry.RuntimeMetrics;
import io.kvcacheinjector.domain.cluster.SyncState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A real {@link WebhookServer} on a free loopback port, with fake use cases and captured logs; its container memory
 * limit is read from a temporary cgroup folder whose {@code memory.max} is {@link #MEMORY_LIMIT}.
 */
public final class TestServer implements AutoCloseable {
    /** The limit the server's fake cgroup reports: 256 MiB. */
    public static final long MEMORY_LIMIT = 256L * 1024 * 1024;

    public final FakeUseCases fakes = new FakeUseCases();
    public final AdmissionMetrics metrics = new AdmissionMetrics();
    public final List<String> log = new CopyOnWriteArrayList<>();
    /** Runs on the serving thread with each log line before it is added to {@link #log}. */
    public volatile Consumer<String> beforeLog = line -> {
    };
    public final AtomicReference<SyncState> sync = new AtomicReference<>(SyncState.synced());
    public final WebhookServer server;
    public final Path cgroupRoot;

    public TestServer(ServerTls tls, WebhookServerSettings settings) {
        JsonLog jsonLog = new JsonLog(line -> {
            beforeLog.accept(line);
            log.add(line);
        }, Clock.systemUTC());
        AdmissionHandler handler = new AdmissionHandler(fakes.useCases(), AdmissionHandler.DEFAULT_FAIL_OPEN,
                metrics, jsonLog);
        try {
            cgroupRoot = Files.createTempDirectory("cgroup");
            Files.writeString(cgroupRoot.resolve("memory.max"), MEMORY_LIMIT + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server = WebhookServer.start(settings, tls, handler, sync::get,
                List.of(metrics, new RuntimeMetrics(new ContainerMemoryLimit(cgroupRoot))),
                jsonLog, Clock.systemUTC());
    }

    /** Settings for tests: loopback, a free port, 3 MiB, a 5 s grace, a fast poll. */
    public static WebhookServerSettings settings() {
        return WebhookServerSettings.defaults().withHost("127.0.0.1").withPort(0)
                .withShutdownGrace(Duration.ofSeconds(5)).withTlsPollPeriod(Duration.ofMillis(100));
    }

    /** Returns once a line of the server's log contains {@code fragment}; fails the test if none does within 30 s. */
    public void awaitLog(String fragment) throws InterruptedException {
        Await.until("a log line containing " + fragment, () -> log.stream().anyMatch(l -> l.contains(fragment)));
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.shutdown();
        try {
            Files.deleteIfExists(cgroupRoot.resolve("memory.max"));
            Files.deleteIfExists(cgroupRoot);
        } catch (IOException e) {
            // a temporary folder left behind
        }
    }
}
