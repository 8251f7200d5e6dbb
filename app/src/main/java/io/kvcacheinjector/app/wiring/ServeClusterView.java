package io.kvcacheinjector.app.wiring;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import java.util.Objects;
import java.util.Optional;

/**
 * The cluster view {@code serve} reads, whichever adapter provides it, with what must be closed at shutdown.
 *
 * @param directory   the objects the use cases look up
 * @param settings    the operator Setting(s)
 * @param description one phrase for the start-up log, for example {@code file-backed cluster /x}
 * @param closer      releases the watches (and the Kubernetes client)
 * @param client      the Kubernetes client of an informer-backed view, which the CacheBlendEngine controller shares;
 *                    empty for a file-backed one
 */
public record ServeClusterView(ClusterDirectoryPort directory, SettingsPort settings, String description,
                        AutoCloseable closer, Optional<KubernetesClient> client) {
    public ServeClusterView {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(closer, "closer");
        Objects.requireNonNull(client, "client");
    }
}
