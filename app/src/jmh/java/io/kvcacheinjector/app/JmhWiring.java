package io.kvcacheinjector.app;

import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.app.cli.KubeconfigOptions;
import io.kvcacheinjector.app.offline.OfflineCluster;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** The use cases over a cluster directory, wired by the same code as the offline commands and {@code bench}. */
public final class JmhWiring {
    private JmhWiring() {
    }

    public static AdmissionUseCases useCases(Path cluster) {
        try {
            return OfflineCluster.files(cluster, Optional.empty()).open(Map.of()).wiring().useCases();
        } catch (KubeconfigOptions.Unreadable e) {
            throw new IllegalStateException(e.getMessage(), e); // a file-backed cluster reads no kubeconfig
        }
    }
}
