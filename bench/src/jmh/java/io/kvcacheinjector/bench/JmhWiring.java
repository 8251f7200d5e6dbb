package io.kvcacheinjector.bench;

import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.app.cli.KubeconfigOptions;
import io.kvcacheinjector.app.offline.OfflineCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** The use cases over a cluster directory, wired by the same code as the offline commands and {@code bench}. */
public final class JmhWiring {
    /**
     * The engines folder: {@code -Dkvcache.jmh.engines=DIR}, or by default the one a normal build of app leaves in
     * {@code app/target/engines} (JMH runs, and forks, in bench's folder, so {@code ../app/target/engines}).
     */
    public static final String ENGINES_PROPERTY = "kvcache.jmh.engines";

    private JmhWiring() {
    }

    public static AdmissionUseCases useCases(Path cluster) {
        Path engines = Path.of(System.getProperty(ENGINES_PROPERTY, "../app/target/engines")).toAbsolutePath();
        if (!Files.isDirectory(engines)) {
            throw new IllegalStateException("no engines folder at " + engines + "; build it first with"
                    + " bin/mvn -o package -pl app -am -DskipTests, or pass -D" + ENGINES_PROPERTY + "=DIR");
        }
        try {
            return OfflineCluster.files(cluster, Optional.of(engines.toString())).open(Map.of()).wiring().useCases();
        } catch (KubeconfigOptions.Unreadable e) {
            throw new IllegalStateException(e.getMessage(), e); // a file-backed cluster reads no kubeconfig
        }
    }
}
