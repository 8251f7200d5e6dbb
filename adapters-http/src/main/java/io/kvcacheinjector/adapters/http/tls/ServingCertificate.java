package io.kvcacheinjector.adapters.http.tls;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

/** The server's private key and its certificate chain, leaf first. */
public record ServingCertificate(PrivateKey key, List<X509Certificate> chain) {
    public ServingCertificate {
        Objects.requireNonNull(key, "key");
        chain = List.copyOf(chain);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("a serving certificate needs at least the leaf certificate");
        }
    }

    /** The leaf certificate, the one presented to clients. */
    public X509Certificate leaf() {
        return chain.getFirst();
    }
}
