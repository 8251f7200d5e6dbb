package io.kvcacheinjector.app.serve;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/** Helpers for the serve tests: Pods from the examples, reviews, and a small HTTPS client. */
final class ServeTesting {
    static final Path EXAMPLES = Path.of("..", "docs", "examples");
    static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private ServeTesting() {
    }

    /** The Pod of an example file: a Pod as is, or a Deployment's template as a Pod in its namespace. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> examplePod(String file) throws IOException {
        Map<String, Object> object = YAML.readValue(EXAMPLES.resolve("pods").resolve(file).toFile(), Map.class);
        if ("Pod".equals(object.get("kind"))) {
            return object;
        }
        Map<String, Object> metadata = (Map<String, Object>) object.get("metadata");
        Map<String, Object> template = (Map<String, Object>) ((Map<String, Object>) object.get("spec")).get("template");
        Map<String, Object> podMetadata = new LinkedHashMap<>((Map<String, Object>) template.get("metadata"));
        podMetadata.put("generateName", metadata.get("name") + "-");
        podMetadata.put("namespace", metadata.get("namespace"));
        Map<String, Object> pod = new LinkedHashMap<>();
        pod.put("apiVersion", "v1");
        pod.put("kind", "Pod");
        pod.put("metadata", podMetadata);
        pod.put("spec", template.get("spec"));
        return pod;
    }

    /** An AdmissionReview v1 request for {@code pod}. */
    @SuppressWarnings("unchecked")
    static byte[] review(String uid, String operation, Map<String, Object> pod, Map<String, Object> oldPod)
            throws IOException {
        Map<String, Object> request = new LinkedHashMap<>();
        request.put("uid", uid);
        request.put("kind", Map.of("group", "", "version", "v1", "kind", "Pod"));
        request.put("namespace", ((Map<String, Object>) pod.get("metadata")).get("namespace"));
        request.put("operation", operation);
        request.put("object", pod);
        if (oldPod != null) {
            request.put("oldObject", oldPod);
        }
        return JSON.writeValueAsBytes(Map.of("apiVersion", "admission.k8s.io/v1", "kind", "AdmissionReview",
                "request", request));
    }

    /** A client context trusting the PEM certificate in {@code caFile}. */
    static SSLContext trusting(Path caFile) throws Exception {
        X509Certificate ca;
        try (InputStream in = Files.newInputStream(caFile)) {
            ca = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    /** A response: status and body. */
    record Response(int status, String body) {
    }

    /** One request on a new connection to https://localhost:port, host name verified. */
    static Response request(SSLContext ctx, int port, String method, String path, byte[] body) throws IOException {
        try (SSLSocket socket = (SSLSocket) ctx.getSocketFactory().createSocket("localhost", port)) {
            var params = socket.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(params);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            String head = method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
                    + (body == null ? "" : "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n")
                    + "\r\n";
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            if (body != null) {
                out.write(body);
            }
            out.flush();
            InputStream in = socket.getInputStream();
            java.io.ByteArrayOutputStream received = new java.io.ByteArrayOutputStream();
            while (!received.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
                int c = in.read();
                if (c < 0) {
                    throw new IOException("the server closed the connection before the response head ended");
                }
                received.write(c);
            }
            String headText = received.toString(StandardCharsets.US_ASCII);
            int status = Integer.parseInt(headText.substring(9, 12));
            int length = 0;
            for (String line : headText.split("\r\n")) {
                if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                    length = Integer.parseInt(line.substring(15).trim());
                }
            }
            return new Response(status, new String(in.readNBytes(length), StandardCharsets.UTF_8));
        }
    }
}
