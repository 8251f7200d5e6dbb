package io.kvcacheinjector.app;

import io.kvcacheinjector.app.wiring.AdmissionWiring;
import io.kvcacheinjector.adapters.k8s.CacheBlendContract;
import io.kvcacheinjector.adapters.k8s.file.FileClusterDirectory;
import io.kvcacheinjector.app.engines.EngineFolders;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.spi.Engines;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * The use cases of the offline commands ({@code inject}, {@code review}, {@code bench}) over the file-backed cluster of
 * {@code --cluster DIR} and the engines of {@code --engines-dir}, wired exactly as the server wires them.
 */
final class OfflineCluster {
    static final Set<String> VALUED = Set.of("--cluster", "--settings-namespace", "--cacheblend-allowed-namespaces",
            "--namespace", EngineOptions.FLAG);
    static final Set<String> SWITCHES = Set.of("--cacheblend-fail-closed", "--disable-cacheblend");

    private OfflineCluster() {
    }

    /**
     * The engines first (an {@link io.kvcacheinjector.app.engines.EngineLoadException} names the folder and the fix),
     * then the cluster files, wired by {@link AdmissionWiring} with the options and defaults of {@code serve}: the
     * settings namespace ({@code --settings-namespace}, default {@code gpustack-system}), the CacheBlend allow-list,
     * fail-closed switch and contract switch, and the webhook's own namespace {@code kvcache-injector} (excluded from
     * CacheBlend, as in a default install; offline, {@code --namespace} is the fallback namespace of the objects read).
     */
    static AdmissionWiring wiring(CliArgs args) {
        List<Path> folders = EngineOptions.folders(args);
        CacheBlendContract contract = CacheBlendContract.disabledWhen(args.has("--disable-cacheblend"));
        EngineFolders.Loaded loaded = EngineFolders.load(folders);
        EngineFolders.requireCacheBlendEngine(loaded, folders, contract.enabled());
        Engines engines = loaded.engines();
        CacheBlendSettings cacheBlend = CacheBlendSettings.of(args.value("--cacheblend-allowed-namespaces").orElse(""),
                args.has("--cacheblend-fail-closed"), ServeOptions.DEFAULT_NAMESPACE);
        FileClusterDirectory files = FileClusterDirectory.open(Path.of(args.required("--cluster")),
                args.value("--settings-namespace").filter(s -> !s.isBlank()).orElse(ServeOptions.DEFAULT_SETTINGS_NAMESPACE));
        return AdmissionWiring.of(contract.applyTo(files), files, engines, cacheBlend);
    }
}
