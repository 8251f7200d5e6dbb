package io.kvcacheinjector.adapters.http.testing;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * One HTTP/1.1 connection over TLS, kept open across requests, so a test knows exactly which connection a request
 * used. Verifies the server's certificate against the context's trust and the host name {@code localhost}.
 */
public final class RawHttps implements Closeable {
    /** A response: status, headers (lower-case names) and body. */
    public record Response(int status, Map<String, String> headers, byte[] body) {
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final SSLSocket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawHttps(SSLContext context, int port, String... protocols) throws IOException {
        socket = (SSLSocket) context.getSocketFactory().createSocket("localhost", port);
        socket.setSoTimeout(60_000);
        SSLParameters params = socket.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        if (protocols.length > 0) {
            params.setProtocols(protocols);
        }
        socket.setSSLParameters(params);
        socket.startHandshake();
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** The certificate the server presented on this connection. */
    public X509Certificate serverCertificate() throws IOException {
        return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }

    /** The negotiated protocol, for example {@code TLSv1.3}. */
    public String protocol() {
        return socket.getSession().getProtocol();
    }

    public Response get(String path) throws IOException {
        return send("GET", path, null, false);
    }

    /** A GET with one more header line, for example {@code Accept}. */
    public Response get(String path, String header, String value) throws IOException {
        return send("GET", path, null, false, header + ": " + value + "\r\n");
    }

    public Response post(String path, byte[] body) throws IOException {
        return send("POST", path, body, false);
    }

    /** Sends a request; with {@code chunked}, the body goes without a Content-Length. */
    public Response send(String method, String path, byte[] body, boolean chunked) throws IOException {
        return send(method, path, body, chunked, "");
    }

    private Response send(String method, String path, byte[] body, boolean chunked, String headers)
            throws IOException {
        StringBuilder head = new StringBuilder();
        head.append(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: localhost\r\n").append(headers);
        if (body != null) {
            head.append("Content-Type: application/json\r\n");
            head.append(chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + body.length + "\r\n");
        }
        head.append("\r\n");
        out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
        if (body != null) {
            if (chunked) {
                int chunk = 64 * 1024;
                for (int i = 0; i < body.length; i += chunk) {
                    int n = Math.min(chunk, body.length - i);
                    out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(body, i, n);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            } else {
                out.write(body);
            }
        }
        out.flush();
        return read();
    }

    /** Sends only the request head and a part of the body (for a request left in flight). */
    public void sendHead(String method, String path, int contentLength) throws IOException {
        out.write((method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + contentLength
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Reads one response. */
    public Response read() throws IOException {
        String status = line();
        if (status == null) {
            throw new IOException("the server closed the connection");
        }
        String[] parts = status.split(" ", 3);
        Map<String, String> headers = new LinkedHashMap<>();
        String h;
        while ((h = line()) != null && !h.isEmpty()) {
            int colon = h.indexOf(':');
            headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
        }
        byte[] body;
        if (headers.containsKey("content-length")) {
            body = in.readNBytes(Integer.parseInt(headers.get("content-length")));
        } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            while (true) {
                int size = Integer.parseInt(line().split(";")[0].trim(), 16);
                if (size == 0) {
                    line();
                    break;
                }
                b.write(in.readNBytes(size));
                line();
            }
            body = b.toByteArray();
        } else {
            body = new byte[0];
        }
        return new Response(Integer.parseInt(parts[1]), headers, body);
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                break;
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        if (c == -1 && b.size() == 0) {
            return null;
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    /** Whether the server has closed this connection (a read sees end of stream or a reset). */
    public boolean closedByServer() {
        try {
            return in.read() == -1;
        } catch (IOException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
