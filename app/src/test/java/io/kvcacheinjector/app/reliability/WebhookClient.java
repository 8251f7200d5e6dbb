package io.kvcacheinjector.app.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * An HTTPS client of the webhook as the API server is one: HTTP/1.1, keep-alive, the server's certificate verified
 * against a CA for the name {@code localhost}, and a timeout on every request (10 s, the admission's own bound, unless
 * told otherwise), so a server that hangs fails the test instead of hanging it.
 */
final class WebhookClient implements AutoCloseable {
    /** One answer. */
    record Answer(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final HttpClient http;
    private final SSLContext tls;
    private final int port;
    private final Duration timeout;

    WebhookClient(SSLContext tls, int port, Duration timeout) {
        this.tls = tls;
        this.port = port;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(tls)
                .connectTimeout(Duration.ofSeconds(10)).executor(Executors.newVirtualThreadPerTaskExecutor()).build();
    }

    WebhookClient(SSLContext tls, int port) {
        this(tls, port, Duration.ofSeconds(10));
    }

    Answer post(String path, byte[] body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(uri(path)).timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        return new Answer(response.statusCode(), response.body());
    }

    Answer get(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(uri(path)).timeout(timeout).GET().build();
        HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        return new Answer(response.statusCode(), response.body());
    }

    /** The certificate a new connection is served (a fresh TLS handshake, outside the pool). */
    X509Certificate servedCertificate() throws IOException {
        try (SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket("localhost", port)) {
            socket.setSoTimeout((int) timeout.toMillis());
            socket.startHandshake();
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }

    private URI uri(String path) {
        return URI.create("https://localhost:" + port + path);
    }

    @Override
    public void close() {
        http.close();
    }

    /** A client context that trusts the PEM certificates in {@code caFile}. */
    static SSLContext trusting(Path caFile) {
        try (InputStream in = Files.newInputStream(caFile)) {
            Collection<? extends Certificate> cas = CertificateFactory.getInstance("X.509").generateCertificates(in);
            return trusting(cas);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the CA file " + caFile + ": " + e, e);
        }
    }

    static SSLContext trusting(Collection<? extends Certificate> cas) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            int i = 0;
            for (Certificate ca : cas) {
                trust.setCertificateEntry("ca" + i++, ca);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
