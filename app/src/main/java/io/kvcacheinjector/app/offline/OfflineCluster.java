package io.kvcacheinjector.app.offline;

import io.kvcacheinjector.app.cli.Kubeconfig;
import io.kvcacheinjector.app.cli.KubeconfigOptions;
import io.kvcacheinjector.app.engines.EngineOptions;
import io.kvcacheinjector.app.serve.ServeOptions;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvcacheinjector.adapters.k8s.CacheBlendContract;
import io.kvcacheinjector.adapters.k8s.file.FileClusterDirectory;
import io.kvcacheinjector.app.check.LiveClusterDirectory;
import io.kvcacheinjector.app.engines.EngineFolders;
import io.kvcacheinjector.app.wiring.AdmissionWiring;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.spi.Engines;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The cluster of the offline commands ({@code inject}, {@code review}, {@code bench}): the file-backed cluster of
 * {@code --cluster DIR}, or without it the live cluster of the kubeconfig, read-only through the view {@code check}
 * uses ({@link LiveClusterDirectory}); and the engines of {@code --engines-dir}; wired exactly as the server wires
 * them.
 */
public final class OfflineCluster {
    @Option(names = "--cluster", paramLabel = "DIR", description = "Read the cluster from the YAML/JSON files under"
            + " DIR (docs/examples/cluster is one); without it, the live cluster of the kubeconfig, read-only.")
    String cluster;

    @Option(names = "--settings-namespace", paramLabel = "NS", description = "The namespace of the Secret"
            + " gpustack-settings (default gpustack-system).")
    String settingsNamespace;

    @Option(names = "--cacheblend-allowed-namespaces", paramLabel = "NS[,NS...]", description = "The namespaces"
            + " whose CacheBlendEngines any Pod may use, as serve takes it.")
    String cacheBlendAllowedNamespaces;

    @Option(names = "--cacheblend-fail-closed", arity = "0", description = "CacheBlend skips become refusals, as in"
            + " serve.")
    boolean cacheBlendFailClosed;

    @Option(names = "--disable-cacheblend", arity = "0", description = "The kvcache contract only: every CacheBlend"
            + " Pod is answered that the contract is disabled, as serve answers it.")
    boolean cacheBlendDisabled;

    @Mixin
    EngineOptions engines = new EngineOptions();

    @Mixin
    KubeconfigOptions kube = new KubeconfigOptions();

    /** The cluster files of {@code dir} with the engines of {@code enginesDir} (for {@code bench}). */
    public static OfflineCluster files(Path dir, Optional<String> enginesDir) {
        OfflineCluster c = new OfflineCluster();
        c.cluster = dir.toString();
        c.engines.value = enginesDir.orElse(null);
        return c;
    }

    /**
     * The wired use cases and what must be closed after them.
     *
     * @param contextNamespace the kubeconfig context's namespace when the cluster is live and the context names one
     */
    public record Opened(AdmissionWiring wiring, Optional<String> contextNamespace, Runnable closer) {
        /** Closes the client or the file watcher. */
        public void close() {
            closer.run();
        }
    }

    /**
     * The engines first (an {@link io.kvcacheinjector.app.engines.EngineLoadException} names the folder and the fix),
     * then the cluster, wired by {@link AdmissionWiring} with the options and defaults of {@code serve}: the
     * settings namespace ({@code --settings-namespace}, default {@code gpustack-system}), the CacheBlend allow-list,
     * fail-closed switch and contract switch, and the webhook's own namespace {@code kvcache-injector} (excluded from
     * CacheBlend, as in a default install; offline, {@code --namespace} is the fallback namespace of the objects read).
     *
     * @throws KubeconfigOptions.Unreadable without {@code --cluster}, when the live cluster cannot be reached
     */
    public Opened open(Map<String, String> env) throws KubeconfigOptions.Unreadable {
        List<Path> folders = engines.folders();
        CacheBlendContract contract = CacheBlendContract.disabledWhen(cacheBlendDisabled);
        EngineFolders.Loaded loaded = EngineFolders.load(folders);
        EngineFolders.requireCacheBlendEngine(loaded, folders, contract.enabled());
        Engines loadedEngines = loaded.engines();
        CacheBlendSettings cacheBlend = CacheBlendSettings.of(cacheBlendAllowedNamespaces == null ? ""
                : cacheBlendAllowedNamespaces, cacheBlendFailClosed, ServeOptions.DEFAULT_NAMESPACE);
        String settings = settingsNamespace == null || settingsNamespace.isBlank()
                ? ServeOptions.DEFAULT_SETTINGS_NAMESPACE : settingsNamespace.trim();
        if (cluster != null) {
            if (kube.kubeconfig != null || kube.context != null) {
                throw new IllegalArgumentException("--cluster reads files and --kubeconfig/--context name a live"
                        + " cluster; drop one of them");
            }
            FileClusterDirectory files = FileClusterDirectory.open(Path.of(cluster), settings);
            return new Opened(AdmissionWiring.of(contract.applyTo(files), files, loadedEngines, cacheBlend),
                    Optional.empty(), files::close);
        }
        return Live.open(kube, env, settings, contract, loadedEngines, cacheBlend);
    }

    /**
     * The live cluster, apart so that the file-backed path never loads fabric8's client classes (inject's start-up,
     * docs/explanation/decisions.md).
     */
    private static final class Live {
        static Opened open(KubeconfigOptions kube, Map<String, String> env, String settings,
                           CacheBlendContract contract, Engines engines, CacheBlendSettings cacheBlend)
                throws KubeconfigOptions.Unreadable {
            Config config = Kubeconfig.config(kube, env);
            KubernetesClient client = Kubeconfig.reachable(config);
            LiveClusterDirectory live = new LiveClusterDirectory(client, settings);
            return new Opened(AdmissionWiring.of(contract.applyTo(live), live, engines, cacheBlend),
                    Kubeconfig.namespace(config), client::close);
        }
    }
}
