package io.kvcacheinjector.app.wiring;


import io.kvcacheinjector.app.wiring.AdmissionWiring;
import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.adapters.http.telemetry.AdmissionMetrics;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.adapters.k8s.file.FileClusterDirectory;
import io.kvcacheinjector.adapters.k8s.informer.InformerClusterDirectory;
import io.kvcacheinjector.app.engines.EngineFolders;
import io.kvcacheinjector.app.engines.EngineInfoMetrics;
import io.kvcacheinjector.app.engines.LoadedEngine;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import io.kvcacheinjector.ports.spi.Engines;
import io.kvcacheinjector.adapters.k8s.CacheBlendContract;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.time.Clock;

/**
 * The Guice wiring of {@code serve}: the cluster view (file-backed with {@code --cluster}, informers otherwise; with
 * {@code --disable-cacheblend} either answers every CacheBlend lookup that the contract is disabled),
 * the engines of the engines folder, the three use cases and the admission handler. The server itself, the TLS material and the
 * lifecycle are started by {@code ServeRuntime}.
 */
public final class AppModule extends AbstractModule {
    /**
     * What the wiring reads of {@code serve}'s command line; {@code ServeOptions} gives it (an interface here, so
     * the composition root does not depend on the {@code serve} package that starts it).
     */
    public interface Options {
        Optional<Path> cluster();

        String settingsNamespace();

        List<Path> enginesDirs();

        CacheBlendContract cacheBlendContract();

        String cacheBlendAllowedNamespaces();

        boolean cacheBlendFailClosed();

        String namespace();
    }

    private final Options options;
    private final JsonLog log;
    private final Clock clock;

    public AppModule(Options options, JsonLog log, Clock clock) {
        this.options = options;
        this.log = log;
        this.clock = clock;
    }

    @Override
    protected void configure() {
        bind(Options.class).toInstance(options);
        bind(JsonLog.class).toInstance(log);
        bind(Clock.class).toInstance(clock);
    }

    /**
     * The engines of {@code --engines-dir} (engines/ beside the jar by default), each logged with its id, version,
     * folder and the annotation values it accepts.
     */
    @Provides
    @Singleton
    EngineFolders.Loaded loadedEngines() {
        EngineFolders.Loaded loaded = EngineFolders.load(options.enginesDirs());
        for (LoadedEngine l : loaded.details()) {
            log.info("engine-loaded", "id", l.engine().id(), "name", l.engine().displayName(),
                    "version", l.engine().version(), "folder", l.folder().toString(),
                    "jar", l.jar().getFileName().toString(), "accepts", l.engine().selector().describe(),
                    "entryPoint", l.engine().entryPoint().example(),
                    "capabilities", l.engine().capabilities().toString());
        }
        EngineFolders.requireCacheBlendEngine(loaded, options.enginesDirs(), options.cacheBlendContract().enabled());
        return loaded;
    }

    @Provides
    Engines engines(EngineFolders.Loaded loaded) {
        return loaded.engines();
    }

    @Provides
    @Singleton
    EngineInfoMetrics engineInfoMetrics(EngineFolders.Loaded loaded) {
        return new EngineInfoMetrics(loaded.details());
    }

    @Provides
    @Singleton
    ServeClusterView clusterView() {
        if (options.cluster().isPresent()) {
            Path dir = options.cluster().get();
            FileClusterDirectory directory = FileClusterDirectory.open(dir, options.settingsNamespace());
            directory.startWatching();
            return new ServeClusterView(options.cacheBlendContract().applyTo(directory), directory,
                    "file-backed cluster " + directory.root() + " (reloaded when its files change)"
                            + cacheBlendNote(), directory, java.util.Optional.empty());
        }
        KubernetesClient client = new KubernetesClientBuilder().build();
        InformerClusterDirectory directory;
        try {
            InformerLog.quietRetriesOfUnservedResources();
            directory = InformerClusterDirectory.start(client, options.settingsNamespace(),
                    InformerClusterDirectory.DEFAULT_LIVE_READ_TIMEOUT, options.cacheBlendContract(),
                    new InformerLog(log));
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        return new ServeClusterView(directory, directory, "Kubernetes API at " + client.getMasterUrl()
                + " (informers)" + cacheBlendNote(), () -> {
                    try {
                        directory.close();
                    } finally {
                        client.close();
                    }
                }, java.util.Optional.of(client));
    }

    private String cacheBlendNote() {
        return options.cacheBlendContract().enabled() ? "" : "; CacheBlend contract disabled (--disable-cacheblend)";
    }

    @Provides
    ClusterDirectoryPort directory(ServeClusterView view) {
        return view.directory();
    }

    @Provides
    SettingsPort settings(ServeClusterView view) {
        return view.settings();
    }

    @Provides
    @Singleton
    CacheBlendSettings cacheBlendSettings() {
        return CacheBlendSettings.of(options.cacheBlendAllowedNamespaces(), options.cacheBlendFailClosed(),
                options.namespace());
    }

    @Provides
    @Singleton
    AdmissionWiring wiring(ClusterDirectoryPort directory, SettingsPort settings, Engines engines,
                           CacheBlendSettings cacheBlend) {
        return AdmissionWiring.of(directory, settings, engines, cacheBlend);
    }

    @Provides
    @Singleton
    AdmissionMetrics admissionMetrics() {
        return new AdmissionMetrics();
    }

    /** The handler, with the failure policy of {@link AdmissionWiring}. */
    @Provides
    @Singleton
    AdmissionHandler admissionHandler(AdmissionWiring wiring, AdmissionMetrics metrics) {
        return wiring.handler(metrics, log);
    }
}
