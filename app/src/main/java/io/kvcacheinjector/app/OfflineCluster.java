package io.kvcacheinjector.app;

import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.adapters.k8s.CacheBlendContract;
import io.kvcacheinjector.adapters.k8s.file.FileClusterDirectory;
import io.kvcacheinjector.app.engines.EngineFolders;
import io.kvcacheinjector.ports.in.CacheBlendInjection;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.in.KvCacheFreeze;
import io.kvcacheinjector.ports.in.KvCacheInjection;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.spi.Engines;
import java.nio.file.Path;
import java.util.LinkedHashSet;
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
     * then the cluster files.
     */
    static AdmissionUseCases useCases(CliArgs args) {
        List<Path> folders = EngineOptions.folders(args);
        CacheBlendContract contract = CacheBlendContract.disabledWhen(args.has("--disable-cacheblend"));
        EngineFolders.Loaded loaded = EngineFolders.load(folders);
        EngineFolders.requireCacheBlendEngine(loaded, folders, contract.enabled());
        Engines engines = loaded.engines();
        FileClusterDirectory files = FileClusterDirectory.open(Path.of(args.required("--cluster")),
                args.value("--settings-namespace").orElse("gpustack-system"));
        ClusterDirectoryPort directory = contract.applyTo(files);
        Set<String> excluded = new LinkedHashSet<>(Set.of("kube-system", "kube-public"));
        CacheBlendSettings cacheBlend = new CacheBlendSettings(args.list("--cacheblend-allowed-namespaces"),
                args.has("--cacheblend-fail-closed"), excluded);
        return new AdmissionUseCases(new KvCacheInjection(directory, files, engines), new KvCacheFreeze(),
                new CacheBlendInjection(directory, engines, cacheBlend));
    }
}
