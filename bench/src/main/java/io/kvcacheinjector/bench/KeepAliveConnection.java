package io.kvcacheinjector.bench;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * The client side of one HTTP/1.1 keep-alive connection over TLS to {@code 127.0.0.1}, verifying the server's
 * certificate against the context's trust. One request at a time; the request bytes are prepared once
 * ({@link #request}) so that the client spends the same on every side, and an answer is read into buffers the
 * connection reuses, so that the client allocates little per request (its garbage would pause the servers it
 * measures): about 2.6 kB, most of it in the JDK's TLS layer, against 23–25 kB for the JDK's {@code HttpClient}
 * (docs/explanation/performance-log.md, "The bench harness against HdrHistogram (issue 23)"). Reads a response
 * framed by {@code Content-Length} or chunked encoding; a {@code Connection: close} answer closes it.
 */
final class KeepAliveConnection implements Closeable {
    /** A response: the status and the body. */
    record Response(int status, byte[] body) {
    }

    private static final int MAX_LINE_BYTES = 16 * 1024;
    private static final int MAX_BODY_BYTES = 16 * 1024 * 1024;
    private static final int READ_TIMEOUT_MILLIS = 30_000;
    private static final byte[] CONTENT_LENGTH = "content-length:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRANSFER_ENCODING = "transfer-encoding:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONNECTION = "connection:".getBytes(StandardCharsets.US_ASCII);

    private final SSLSocket socket;
    private final InputStream in;
    private final OutputStream out;
    private byte[] line = new byte[256];
    private int lineLength;
    private byte[] body = new byte[16 * 1024];
    private int bodyLength;
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
        byte[] all = Arrays.copyOf(h, h.length + body.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    /** Whether the connection can carry another request. */
    boolean open() {
        return !closed && !socket.isClosed();
    }

    /** Sends {@code request} (from {@link #request}) and reads the response; see {@link #lastBody()}. */
    int send(byte[] request) throws IOException {
        if (!open()) {
            throw new IOException("the connection is closed");
        }
        out.write(request);
        out.flush();
        return read();
    }

    /** Sends {@code request} and returns the status with a copy of the body. */
    Response exchange(byte[] request) throws IOException {
        int status = send(request);
        return new Response(status, lastBody());
    }

    /** A copy of the last response's body. */
    byte[] lastBody() {
        return Arrays.copyOf(body, bodyLength);
    }

    private int read() throws IOException {
        readLine();
        int code = statusCode();
        long contentLength = -1;
        boolean chunked = false;
        boolean close = false;
        for (int headers = 0; ; headers++) {
            if (headers > 200) {
                throw new IOException("the response has more than 200 header lines");
            }
            readLine();
            if (lineLength == 0) {
                break;
            }
            if (startsWithIgnoringCase(CONTENT_LENGTH)) {
                contentLength = number(CONTENT_LENGTH.length, 10);
            } else if (startsWithIgnoringCase(TRANSFER_ENCODING)) {
                chunked = value(TRANSFER_ENCODING.length).equalsIgnoreCase("chunked");
            } else if (startsWithIgnoringCase(CONNECTION)) {
                close = value(CONNECTION.length).equalsIgnoreCase("close");
            }
        }
        bodyLength = 0;
        if (chunked) {
            readChunkedBody();
        } else if (contentLength > 0) {
            if (contentLength > MAX_BODY_BYTES) {
                throw new IOException("the response body is larger than " + MAX_BODY_BYTES + " bytes");
            }
            readBody((int) contentLength);
        }
        if (close) {
            close();
        }
        return code;
    }

    private void readBody(int n) throws IOException {
        if (bodyLength + n > body.length) {
            body = Arrays.copyOf(body, Math.max(bodyLength + n, 2 * body.length));
        }
        int read = in.readNBytes(body, bodyLength, n);
        if (read != n) {
            throw new IOException("the connection ended inside a response body");
        }
        bodyLength += n;
    }

    private void readChunkedBody() throws IOException {
        for (int chunks = 0; chunks < 100_000; chunks++) {
            readLine();
            int end = indexOf((byte) ';');
            long size = number(0, 16, end < 0 ? lineLength : end);
            if (size == 0) {
                for (int trailers = 0; trailers < 100; trailers++) {
                    readLine();
                    if (lineLength == 0) {
                        return;
                    }
                }
                throw new IOException("the response has too many trailer lines");
            }
            if (bodyLength + size > MAX_BODY_BYTES) {
                throw new IOException("the response body is larger than " + MAX_BODY_BYTES + " bytes");
            }
            readBody((int) size);
            readLine();
        }
        throw new IOException("the response has too many chunks");
    }

    /** HTTP/1.1 200 OK */
    private int statusCode() throws IOException {
        int sp = indexOf((byte) ' ');
        if (sp < 0 || lineLength < sp + 4) {
            throw new IOException("a malformed status line: " + text(0, lineLength));
        }
        return (int) number(sp + 1, 10, sp + 4);
    }

    private void readLine() throws IOException {
        lineLength = 0;
        for (int n = 0; n < MAX_LINE_BYTES; n++) {
            int c = in.read();
            if (c == -1) {
                throw new IOException("the server closed the connection");
            }
            if (c == '\n') {
                return;
            }
            if (c != '\r') {
                if (lineLength == line.length) {
                    line = Arrays.copyOf(line, 2 * line.length);
                }
                line[lineLength++] = (byte) c;
            }
        }
        throw new IOException("a response line is longer than " + MAX_LINE_BYTES + " bytes");
    }

    private boolean startsWithIgnoringCase(byte[] prefix) {
        if (lineLength < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            int c = line[i];
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private int indexOf(byte b) {
        for (int i = 0; i < lineLength; i++) {
            if (line[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private long number(int from, int radix) throws IOException {
        return number(from, radix, lineLength);
    }

    /** The number written in {@code line[from, to)}, blanks around it ignored. */
    private long number(int from, int radix, int to) throws IOException {
        long value = 0;
        int digits = 0;
        for (int i = from; i < to; i++) {
            int d = Character.digit(line[i], radix);
            if (d >= 0 && digits < 15) {
                value = value * radix + d;
                digits++;
            } else if (line[i] != ' ' && line[i] != '\t' || digits >= 15) {
                throw new IOException("a malformed number in \"" + text(0, lineLength) + "\"");
            }
        }
        if (digits == 0) {
            throw new IOException("a missing number in \"" + text(0, lineLength) + "\"");
        }
        return value;
    }

    private String value(int from) {
        return text(from, lineLength).strip();
    }

    private String text(int from, int to) {
        return new String(line, from, to - from, StandardCharsets.US_ASCII);
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
