package io.kvcacheinjector.app.bench;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * The client side of one HTTP/1.1 keep-alive connection over TLS to {@code 127.0.0.1}, verifying the server's
 * certificate against the context's trust. One request at a time; the request bytes are prepared once
 * ({@link #request}) so that the client spends the same on every side. Reads a response framed by
 * {@code Content-Length} or chunked encoding; a {@code Connection: close} answer closes it.
 */
final class KeepAliveConnection implements Closeable {
    /** A response: the status and the body. */
    record Response(int status, byte[] body) {
    }

    private static final int MAX_HEAD_BYTES = 16 * 1024;
    private static final int MAX_BODY_BYTES = 16 * 1024 * 1024;
    private static final int READ_TIMEOUT_MILLIS = 30_000;

    private final SSLSocket socket;
    private final InputStream in;
    private final OutputStream out;
    private boolean closed;

    KeepAliveConnection(SSLContext context, int port) throws IOException {
        socket = (SSLSocket) context.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), port);
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            SSLParameters params = socket.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(params);
            socket.startHandshake();
            in = new BufferedInputStream(socket.getInputStream(), 32 * 1024);
            out = socket.getOutputStream();
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** The bytes of a request: {@code method path} with {@code body} ({@code null}: none) as JSON. */
    static byte[] request(String method, String path, byte[] body) {
        StringBuilder head = new StringBuilder(160);
        head.append(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: localhost\r\n");
        if (body != null) {
            head.append("Content-Type: application/json\r\nContent-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        byte[] h = head.toString().getBytes(StandardCharsets.US_ASCII);
        if (body == null) {
            return h;
        }
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    /** Whether the connection can carry another request. */
    boolean open() {
        return !closed && !socket.isClosed();
    }

    /** Sends {@code request} (from {@link #request}) and reads the response. */
    Response exchange(byte[] request) throws IOException {
        if (!open()) {
            throw new IOException("the connection is closed");
        }
        out.write(request);
        out.flush();
        return read();
    }

    private Response read() throws IOException {
        String status = line();
        if (status.isEmpty()) {
            throw new IOException("the server answered an empty status line");
        }
        int code = statusCode(status);
        long contentLength = -1;
        boolean chunked = false;
        boolean close = false;
        int headBytes = status.length();
        while (true) {
            String h = line();
            headBytes += h.length() + 2;
            if (headBytes > MAX_HEAD_BYTES) {
                throw new IOException("the response head is larger than " + MAX_HEAD_BYTES + " bytes");
            }
            if (h.isEmpty()) {
                break;
            }
            int colon = h.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = h.substring(0, colon).trim();
            String value = h.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("content-length")) {
                try {
                    contentLength = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw new IOException("a bad Content-Length: " + value);
                }
            } else if (name.equalsIgnoreCase("transfer-encoding")) {
                chunked = value.equalsIgnoreCase("chunked");
            } else if (name.equalsIgnoreCase("connection")) {
                close = value.equalsIgnoreCase("close");
            }
        }
        byte[] body;
        if (chunked) {
            body = chunkedBody();
        } else if (contentLength >= 0) {
            if (contentLength > MAX_BODY_BYTES) {
                throw new IOException("the response body is larger than " + MAX_BODY_BYTES + " bytes");
            }
            body = in.readNBytes((int) contentLength);
            if (body.length != contentLength) {
                throw new IOException("the connection ended inside a response body");
            }
        } else {
            body = new byte[0];
        }
        if (close) {
            close();
        }
        return new Response(code, body);
    }

    private byte[] chunkedBody() throws IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        for (int chunks = 0; chunks < 100_000; chunks++) {
            String sizeLine = line();
            int semicolon = sizeLine.indexOf(';');
            int size;
            try {
                size = Integer.parseInt((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
            } catch (NumberFormatException e) {
                throw new IOException("a bad chunk size: " + sizeLine);
            }
            if (size == 0) {
                for (int trailers = 0; trailers < 100; trailers++) {
                    if (line().isEmpty()) {
                        return b.toByteArray();
                    }
                }
                throw new IOException("the response has too many trailer lines");
            }
            if (size < 0 || b.size() + (long) size > MAX_BODY_BYTES) {
                throw new IOException("the response body is larger than " + MAX_BODY_BYTES + " bytes");
            }
            byte[] chunk = in.readNBytes(size);
            if (chunk.length != size) {
                throw new IOException("the connection ended inside a chunk");
            }
            b.write(chunk);
            line();
        }
        throw new IOException("the response has too many chunks");
    }

    private static int statusCode(String status) throws IOException {
        // HTTP/1.1 200 OK
        int sp = status.indexOf(' ');
        if (sp < 0 || status.length() < sp + 4) {
            throw new IOException("a malformed status line: " + status);
        }
        try {
            return Integer.parseInt(status.substring(sp + 1, sp + 4));
        } catch (NumberFormatException e) {
            throw new IOException("a malformed status line: " + status);
        }
    }

    private String line() throws IOException {
        StringBuilder b = new StringBuilder(64);
        for (int n = 0; n < MAX_HEAD_BYTES; n++) {
            int c = in.read();
            if (c == -1) {
                throw new IOException("the server closed the connection");
            }
            if (c == '\n') {
                return b.toString();
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        throw new IOException("a response line is longer than " + MAX_HEAD_BYTES + " bytes");
    }

    @Override
    public void close() {
        closed = true;
        try {
            socket.close();
        } catch (IOException e) {
            // closing a connection that failed anyway
        }
    }
}
