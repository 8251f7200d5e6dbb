package io.kvcacheinjector.app;

import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import java.nio.file.Path;

/** The use cases over a cluster directory, wired by the same code as the offline commands and {@code bench}. */
public final class JmhWiring {
    private JmhWiring() {
    }

    public static AdmissionUseCases useCases(Path cluster) {
        return OfflineCluster.wiring(CliArgs.parse(new String[] {"--cluster", cluster.toString()},
                OfflineCluster.VALUED, OfflineCluster.SWITCHES)).useCases();
    }
}
