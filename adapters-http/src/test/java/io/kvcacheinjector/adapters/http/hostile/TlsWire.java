package io.kvcacheinjector.adapters.http.hostile;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * One TLS connection on which a test writes arbitrary bytes (a lying {@code Content-Length}, a garbage request
 * line, half a body) and reads whatever comes back: a status line with its body, or the server closing. Reads are
 * bounded by a timeout, so a server that hangs fails the test instead of hanging it.
 */
final class TlsWire implements Closeable {
    /** What the server did: answered with {@code status} and {@code body}, or closed without an answer (-1). */
    record Answer(int status, String head, String body) {
        boolean closedWithoutAnswer() {
            return status < 0;
        }
    }

    private final SSLSocket socket;
    private final InputStream in;
    private final OutputStream out;

    TlsWire(SSLContext context, int port, int readTimeoutMillis) throws IOException {
        socket = (SSLSocket) context.getSocketFactory().createSocket("localhost", port);
        socket.setSoTimeout(readTimeoutMillis);
        socket.startHandshake();
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    TlsWire write(String ascii) throws IOException {
        return write(ascii.getBytes(StandardCharsets.ISO_8859_1));
    }

    TlsWire write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Half-closes the sending side (TLS close_notify), as a client that gives up mid-body. */
    void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    /**
     * Reads one answer: the head up to the blank line and a body framed by {@code Content-Length}. End of stream or
     * a reset before a status line is {@code closedWithoutAnswer}; a read timeout throws.
     */
    Answer read() throws IOException {
        String head;
        try {
            head = head();
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            return new Answer(-1, "", "");
        }
        if (head.isEmpty()) {
            return new Answer(-1, "", "");
        }
        int status = Integer.parseInt(head.split(" ", 3)[1]);
        int length = header(head, "content-length").map(Integer::parseInt).orElse(0);
        byte[] body = in.readNBytes(length);
        return new Answer(status, head, new String(body, StandardCharsets.UTF_8));
    }

    /** Whether the server closes this connection (end of stream or reset) within the read timeout. */
    boolean closedByServer() throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    static Optional<String> header(String head, String name) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals(name)) {
                return Optional.of(line.substring(colon + 1).trim());
            }
        }
        return Optional.empty();
    }

    private String head() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            b.write(c);
            int n = b.size();
            if (n >= 4) {
                byte[] a = b.toByteArray();
                if (a[n - 4] == '\r' && a[n - 3] == '\n' && a[n - 2] == '\r' && a[n - 1] == '\n') {
                    break;
                }
            }
            if (n > 64 * 1024) {
                throw new IOException("a response head over 64 KiB");
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
