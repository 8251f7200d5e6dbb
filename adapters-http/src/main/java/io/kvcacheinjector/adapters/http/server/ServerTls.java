package io.kvcacheinjector.adapters.http.server;

import io.kvcacheinjector.adapters.http.tls.CertificateFiles;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/** Where the listener's certificate comes from. */
public sealed interface ServerTls permits ServerTls.FromFiles, ServerTls.Generated {

    /** PEM files, reloaded when they change ({@code --tls-cert}, {@code --tls-key}, {@code --tls-client-ca}). */
    record FromFiles(CertificateFiles files) implements ServerTls {
        public FromFiles {
            Objects.requireNonNull(files, "files");
        }
    }

    /**
     * A certificate generated at start-up; never reloaded. {@code clientCaFile}, when present, is loaded once
     * and client certificates are verified against it.
     */
    record Generated(SelfSignedCertificate certificate, Optional<Path> clientCaFile) implements ServerTls {
        public Generated {
            Objects.requireNonNull(certificate, "certificate");
            Objects.requireNonNull(clientCaFile, "clientCaFile");
        }
    }
}
