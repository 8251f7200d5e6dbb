package io.kvcacheinjector.adapters.http.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The PEM files the TLS listener is configured from: {@code --tls-cert}, {@code --tls-key} and, optionally,
 * {@code --tls-client-ca}. Paths are followed through symlinks on every read, so a Kubernetes Secret volume that
 * swaps its {@code ..data} link is seen as new content.
 */
public record CertificateFiles(Path certificate, Path key, Optional<Path> clientCa) {

    public CertificateFiles {
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(clientCa, "clientCa");
    }

    /** The bytes of every file as read at one moment, and a SHA-256 over all of them. */
    public record Snapshot(byte[] certificate, byte[] key, Optional<byte[]> clientCa, String sha256) {
    }

    /** Reads and checks the files: see {@link #parse}. Never throws. */
    public TlsLoad load(Instant now) {
        Snapshot snapshot;
        try {
            snapshot = read();
        } catch (IOException e) {
            return new TlsLoad.Failed(describe(e));
        }
        return parse(snapshot, now);
    }

    /** Reads the files as they are now. */
    public Snapshot read() throws IOException {
        byte[] cert = readFile(certificate);
        byte[] keyBytes = readFile(key);
        Optional<byte[]> ca = clientCa.isPresent() ? Optional.of(readFile(clientCa.get())) : Optional.empty();
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        for (byte[] part : parts(cert, keyBytes, ca)) {
            sha.update(Integer.toString(part.length).getBytes(StandardCharsets.US_ASCII));
            sha.update((byte) ':');
            sha.update(part);
        }
        return new Snapshot(cert, keyBytes, ca, HexFormat.of().formatHex(sha.digest()));
    }

    /**
     * Checks a snapshot: the certificate file holds at least one certificate, the key file an unencrypted private
     * key that belongs to the first certificate, the first certificate is valid at {@code now}, and the client CA
     * file (when configured) holds at least one certificate.
     */
    public TlsLoad parse(Snapshot snapshot, Instant now) {
        List<X509Certificate> chain;
        PrivateKey privateKey;
        List<X509Certificate> cas = List.of();
        try {
            chain = Pem.certificates(text(snapshot.certificate()));
        } catch (Pem.PemException e) {
            return new TlsLoad.Failed("certificate file " + certificate + " " + e.getMessage());
        }
        try {
            privateKey = Pem.privateKey(text(snapshot.key()));
        } catch (Pem.PemException e) {
            return new TlsLoad.Failed("key file " + key + " " + e.getMessage());
        }
        if (!belongTogether(privateKey, chain.getFirst().getPublicKey())) {
            return new TlsLoad.Failed("the private key in " + key + " does not belong to the first certificate in "
                    + certificate + " (subject " + chain.getFirst().getSubjectX500Principal().getName() + ")");
        }
        try {
            chain.getFirst().checkValidity(Date.from(now));
        } catch (CertificateExpiredException e) {
            return new TlsLoad.Failed("the certificate in " + certificate + " expired at "
                    + chain.getFirst().getNotAfter().toInstant());
        } catch (CertificateNotYetValidException e) {
            return new TlsLoad.Failed("the certificate in " + certificate + " is not valid before "
                    + chain.getFirst().getNotBefore().toInstant());
        }
        if (snapshot.clientCa().isPresent()) {
            try {
                cas = Pem.certificates(text(snapshot.clientCa().get()));
            } catch (Pem.PemException e) {
                return new TlsLoad.Failed("client CA file " + clientCa.orElseThrow() + " " + e.getMessage());
            }
        }
        return new TlsLoad.Loaded(new TlsMaterial(new ServingCertificate(privateKey, chain), cas));
    }

    /**
     * A cheap fingerprint of where the files point and when they changed (real path, modification time and size
     * of each), to decide whether the contents need reading again.
     */
    public String stamp() {
        StringBuilder b = new StringBuilder();
        for (Path p : paths()) {
            try {
                Path real = p.toRealPath();
                b.append(real).append('@').append(Files.getLastModifiedTime(real).toMillis())
                        .append('#').append(Files.size(real)).append(';');
            } catch (IOException e) {
                b.append(p).append("@missing;");
            }
        }
        return b.toString();
    }

    private List<Path> paths() {
        List<Path> l = new ArrayList<>(List.of(certificate, key));
        clientCa.ifPresent(l::add);
        return l;
    }

    private static List<byte[]> parts(byte[] cert, byte[] key, Optional<byte[]> ca) {
        List<byte[]> l = new ArrayList<>(List.of(cert, key));
        ca.ifPresent(l::add);
        return l;
    }

    private static byte[] readFile(Path p) throws IOException {
        return Files.readAllBytes(p);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.US_ASCII);
    }

    private static String describe(IOException e) {
        if (e instanceof NoSuchFileException n) {
            return "file " + n.getFile() + " does not exist";
        }
        return "cannot read " + (e.getMessage() == null ? "a TLS file" : e.getMessage()) + " ("
                + e.getClass().getSimpleName() + ")";
    }

    private static String family(String algorithm) {
        return algorithm.startsWith("Ed") ? "EdDSA" : algorithm;
    }

    /** Whether {@code key} signs what {@code publicKey} verifies. */
    static boolean belongTogether(PrivateKey key, PublicKey publicKey) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "EdDSA", "Ed25519", "Ed448" -> "EdDSA";
            default -> "";
        };
        if (!family(key.getAlgorithm()).equals(family(publicKey.getAlgorithm()))) {
            return false;
        }
        if (algorithm.isEmpty()) {
            return true; // no probe signature for this algorithm (RSASSA-PSS); the handshake will tell
        }
        try {
            byte[] probe = "kvcache-injector key check".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(publicKey);
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
