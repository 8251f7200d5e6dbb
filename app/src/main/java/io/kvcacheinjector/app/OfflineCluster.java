package io.kvcacheinjector.app;

import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.adapters.k8s.file.FileClusterDirectory;
import io.kvcacheinjector.engines.vllm.VllmFlagGrammar;
import io.kvcacheinjector.ports.in.CacheBlendInjection;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.in.KvCacheFreeze;
import io.kvcacheinjector.ports.in.KvCacheInjection;
import io.kvcacheinjector.ports.spi.Engines;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The use cases of the offline commands ({@code inject}, {@code review}) over the file-backed cluster of
 * {@code --cluster DIR}, wired exactly as the server wires them.
 */
final class OfflineCluster {
    static final Set<String> VALUED = Set.of("--cluster", "--settings-namespace", "--cacheblend-allowed-namespaces", "--namespace");
    static final Set<String> SWITCHES = Set.of("--cacheblend-fail-closed");

    private OfflineCluster() {
    }

    static AdmissionUseCases useCases(CliArgs args) {
        FileClusterDirectory directory = FileClusterDirectory.open(Path.of(args.required("--cluster")),
                args.value("--settings-namespace").orElse("gpustack-system"));
        Engines engines = EngineLoader.load();
        Set<String> excluded = new LinkedHashSet<>(Set.of("kube-system", "kube-public"));
        CacheBlendSettings cacheBlend = new CacheBlendSettings(args.list("--cacheblend-allowed-namespaces"),
                args.has("--cacheblend-fail-closed"), excluded);
        return new AdmissionUseCases(new KvCacheInjection(directory, directory, engines), new KvCacheFreeze(),
                new CacheBlendInjection(directory, VllmFlagGrammar.INSTANCE, cacheBlend));
    }
}
