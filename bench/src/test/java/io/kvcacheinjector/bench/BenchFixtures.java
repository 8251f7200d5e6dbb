package io.kvcacheinjector.bench;

import io.kvcacheinjector.app.wiring.AdmissionWiring;
import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.adapters.k8s.file.FileClusterDirectory;
import io.kvcacheinjector.app.engines.BuiltInEngines;
import io.kvcacheinjector.ports.service.CacheBlendInjection;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.service.KvCacheFreeze;
import io.kvcacheinjector.ports.service.KvCacheInjection;
import java.nio.file.Path;
import java.util.Set;

/** The real use cases over a cluster directory, as {@code serve} and the offline commands build them. */
final class BenchFixtures {
    private BenchFixtures() {
    }

    static AdmissionUseCases realUseCases(Path cluster) {
        FileClusterDirectory directory = FileClusterDirectory.open(cluster, "gpustack-system");
        return AdmissionWiring.of(directory, directory, BuiltInEngines.engines(),
                new CacheBlendSettings(Set.of(), false, CacheBlendSettings.SYSTEM_NAMESPACES)).useCases();
    }
}
