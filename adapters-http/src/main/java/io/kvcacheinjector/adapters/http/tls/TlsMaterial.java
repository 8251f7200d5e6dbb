package io.kvcacheinjector.adapters.http.tls;

import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;

/**
 * Everything the TLS listener needs: the serving certificate and, when client certificates are verified, the CA
 * certificates a client certificate must chain to (empty otherwise).
 */
public record TlsMaterial(ServingCertificate serving, List<X509Certificate> clientCas) {
    public TlsMaterial {
        Objects.requireNonNull(serving, "serving");
        clientCas = List.copyOf(clientCas);
    }
}
