package io.kvcacheinjector.app.reliability;

import io.kvcacheinjector.adapters.http.tls.Pem;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;

/**
 * A directory laid out as the kubelet mounts a TLS Secret: {@code tls.crt} and {@code tls.key} are symlinks into
 * {@code ..data}, a symlink to a timestamped directory that a rotation replaces in one atomic rename. What
 * {@code serve --tls-cert DIR/tls.crt --tls-key DIR/tls.key} watches.
 */
final class SecretVolume {
    private final Path root;
    private int generation;

    SecretVolume(Path root) throws IOException {
        this.root = Files.createDirectories(root);
    }

    Path certificate() {
        return root.resolve("tls.crt");
    }

    Path key() {
        return root.resolve("tls.key");
    }

    /** Writes a new certificate for localhost (its own CA) and swaps it in; returns it. */
    SelfSignedCertificate rotate(Clock clock) throws IOException {
        SelfSignedCertificate cert = SelfSignedCertificate.forLocalhost(clock);
        write(Pem.write(cert.serving().chain()), Pem.write(cert.serving().key()));
        return cert;
    }

    /** Swaps in a new {@code ..data} directory holding these texts (garbage included). */
    synchronized void write(String certificatePem, String keyPem) throws IOException {
        write(certificatePem.getBytes(StandardCharsets.US_ASCII), keyPem.getBytes(StandardCharsets.US_ASCII));
    }

    synchronized void write(byte[] certificate, byte[] key) throws IOException {
        Path dir = root.resolve("..2026_11_30_" + (++generation));
        Files.createDirectories(dir);
        Files.write(dir.resolve("tls.crt"), certificate);
        Files.write(dir.resolve("tls.key"), key);
        Path tmp = root.resolve("..data_tmp");
        Files.deleteIfExists(tmp);
        Files.createSymbolicLink(tmp, dir.getFileName());
        Files.move(tmp, root.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (!Files.exists(certificate(), LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(certificate(), Path.of("..data", "tls.crt"));
            Files.createSymbolicLink(key(), Path.of("..data", "tls.key"));
        }
        // as the kubelet does, the previous generation goes once the new one is in place
        Path previous = root.resolve("..2026_11_30_" + (generation - 1));
        if (Files.isDirectory(previous)) {
            Files.deleteIfExists(previous.resolve("tls.crt"));
            Files.deleteIfExists(previous.resolve("tls.key"));
            Files.deleteIfExists(previous);
        }
    }
}
