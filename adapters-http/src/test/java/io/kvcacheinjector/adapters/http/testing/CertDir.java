package io.kvcacheinjector.adapters.http.testing;

import io.kvcacheinjector.adapters.http.tls.CertificateFiles;
import io.kvcacheinjector.adapters.http.tls.Pem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * A directory laid out like a mounted Kubernetes Secret: {@code tls.crt} and {@code tls.key} are symlinks into
 * {@code ..data}, itself a symlink to a timestamped directory; {@link #rotate} writes a new directory and swaps
 * {@code ..data} atomically, as the kubelet does.
 */
public final class CertDir {
    private final Path root;
    private int generation;

    public CertDir(Path root) {
        this.root = root;
    }

    public Path certificate() {
        return root.resolve("tls.crt");
    }

    public Path key() {
        return root.resolve("tls.key");
    }

    public CertificateFiles files() {
        return new CertificateFiles(certificate(), key(), Optional.empty());
    }

    /** Writes a certificate for {@code keys} (self-signed, subject {@code CN=cn}) and swaps it in. */
    public X509Certificate rotate(KeyPair keys, String cn) throws IOException {
        X509Certificate cert = TestPki.selfSigned(keys, cn);
        rotate(Pem.write(List.of(cert)), Pem.write(keys.getPrivate()));
        return cert;
    }

    /** Swaps in a new {@code ..data} directory holding these texts. */
    public void rotate(String certificatePem, String keyPem) throws IOException {
        Path dir = root.resolve("..2026_" + (++generation));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("tls.crt"), certificatePem, StandardCharsets.US_ASCII);
        Files.writeString(dir.resolve("tls.key"), keyPem, StandardCharsets.US_ASCII);
        Path tmp = root.resolve("..data_tmp");
        Files.deleteIfExists(tmp);
        Files.createSymbolicLink(tmp, dir.getFileName());
        Files.move(tmp, root.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (!Files.exists(certificate(), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(certificate(), Path.of("..data", "tls.crt"));
            Files.createSymbolicLink(key(), Path.of("..data", "tls.key"));
        }
    }
}
