package io.kvcacheinjector.adapters.http.server;

import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.domain.Webhook;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * What {@code serve} answers before it reports ready, so that the JIT has compiled the review path when the API
 * server's first review arrives instead of over the minutes after it (docs/explanation/decisions.md, "Ready means
 * warm"). {@link WebhookServer} runs it on a second listener bound to {@code 127.0.0.1} only, with the server's own
 * TLS context and routes but {@link #handler} (a cluster of its own, its own metrics, a log that is formatted and
 * discarded), and sends it {@link #reviews} requests over {@link #connections} connections at a time, each
 * connection closed and opened again after {@link #PER_CONNECTION} reviews so that the TLS handshake is compiled too.
 *
 * @param handler     the handler the warm-up listener answers with; never the one that serves the API server
 * @param requests    the bodies, sent in turn
 * @param reviews     how many reviews in all (at least 1)
 * @param connections how many connections send at once (at least 1)
 */
public record WarmUp(AdmissionHandler handler, List<Request> requests, int reviews, int connections) {
    /** Reviews per connection before it is closed and a new one (a new TLS handshake) is opened. */
    public static final int PER_CONNECTION = 100;

    /** One request body and the route it goes to. */
    public record Request(Webhook webhook, byte[] body) {
        public Request {
            Objects.requireNonNull(webhook, "webhook");
            body = body.clone();
        }
    }

    /**
     * What a warm-up did.
     *
     * @param sent     reviews sent
     * @param answered reviews answered {@code 200}
     * @param opened   connections (TLS handshakes) opened
     * @param millis   how long it took
     */
    public record Result(int sent, int answered, int opened, long millis) {
    }

    public WarmUp {
        Objects.requireNonNull(handler, "handler");
        requests = List.copyOf(requests);
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("a warm-up needs at least one request");
        }
        if (reviews < 1 || connections < 1) {
            throw new IllegalArgumentException("a warm-up sends at least one review over at least one connection");
        }
    }

    /**
     * Sends the reviews to {@code port} on {@code 127.0.0.1}, trusting exactly {@code leaf} (the listener's own
     * certificate), until all are sent or {@code stop} says so. Progress goes to {@code sent}.
     *
     * @throws IOException when a connection cannot be made or an answer cannot be read
     */
    Result drive(int port, X509Certificate leaf, AtomicInteger sent, BooleanSupplier stop) throws IOException {
        long started = System.nanoTime();
        SSLContext context = trusting(leaf);
        AtomicInteger answered = new AtomicInteger();
        AtomicInteger opened = new AtomicInteger();
        AtomicInteger next = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        IOException[] failure = new IOException[1];
        for (int c = 0; c < connections; c++) {
            Thread t = Thread.ofPlatform().daemon().name("warm-up-client-" + c).unstarted(() -> {
                try {
                    send(context, port, next, sent, answered, opened, stop);
                } catch (IOException e) {
                    synchronized (failure) {
                        failure[0] = failure[0] == null ? e : failure[0];
                    }
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
        synchronized (failure) {
            if (failure[0] != null) {
                throw failure[0];
            }
        }
        return new Result(sent.get(), answered.get(), opened.get(), (System.nanoTime() - started) / 1_000_000);
    }

    /** The longest {@link #awaitCompilerIdle} waits. */
    static final long SETTLE_LIMIT_MILLIS = 30_000;
    private static final long SETTLE_STEP_MILLIS = 250;

    /**
     * Waits until the JIT has finished what the warm-up queued: the JVM's total compilation time unchanged over two
     * steps of 250 ms, at most {@link #SETTLE_LIMIT_MILLIS} or until {@code stop} says so. Without it the compiler
     * threads go on for another half minute after {@code /readyz} turns 200 (docs/explanation/performance-log.md,
     * "Ready means warm (issue 32)"). Returns how long it waited.
     */
    static long awaitCompilerIdle(BooleanSupplier stop) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long started = System.nanoTime();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return 0;
        }
        long last = jit.getTotalCompilationTime();
        int quiet = 0;
        while (quiet < 2 && !stop.getAsBoolean()
                && (System.nanoTime() - started) / 1_000_000 < SETTLE_LIMIT_MILLIS) {
            try {
                Thread.sleep(SETTLE_STEP_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            long now = jit.getTotalCompilationTime();
            quiet = now == last ? quiet + 1 : 0;
            last = now;
        }
        return (System.nanoTime() - started) / 1_000_000;
    }

    private void send(SSLContext context, int port, AtomicInteger next, AtomicInteger sent, AtomicInteger answered,
                      AtomicInteger opened, BooleanSupplier stop) throws IOException {
        int n = next.getAndIncrement();
        while (n < reviews && !stop.getAsBoolean()) {
            try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(
                    InetAddress.getLoopbackAddress(), port)) {
                socket.setSoTimeout(30_000);
                socket.setTcpNoDelay(true);
                opened.incrementAndGet();
                OutputStream out = socket.getOutputStream();
                InputStream in = new BufferedInputStream(socket.getInputStream());
                boolean open = true;
                for (int onThis = 0; open && onThis < PER_CONNECTION && n < reviews && !stop.getAsBoolean(); onThis++) {
                    Request r = requests.get(n % requests.size());
                    // one write: the head and the body in one TLS record, as a client that buffers sends them;
                    // the request line and headers the API server's client sends (its timeout as a query, Go's
                    // header order), so that C2 compiles Helidon's request prologue for them and does not throw
                    // that code away at the first real review (docs/explanation/decisions.md, "Ready means warm")
                    byte[] head = ("POST /" + r.webhook().path() + "?timeout=10s HTTP/1.1\r\n"
                            + "Host: 127.0.0.1\r\nUser-Agent: kube-apiserver-admission\r\n"
                            + "Content-Length: " + r.body.length + "\r\nAccept: application/json, */*\r\n"
                            + "Content-Type: application/json\r\nAccept-Encoding: gzip\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII);
                    byte[] request = Arrays.copyOf(head, head.length + r.body.length);
                    System.arraycopy(r.body, 0, request, head.length, r.body.length);
                    out.write(request);
                    out.flush();
                    sent.incrementAndGet();
                    Answer answer = read(in);
                    if (answer.status() == 200) {
                        answered.incrementAndGet();
                    }
                    open = !answer.close();
                    n = next.getAndIncrement();
                }
            }
        }
    }

    private record Answer(int status, boolean close) {
    }

    /** One HTTP/1.1 answer with a {@code Content-Length} (as every answer of the server's routes has). */
    private static Answer read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream(256);
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the warm-up listener closed the connection before answering");
            }
            head.write(b);
            matched = b == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        if (statusLine.length < 2 || !statusLine[0].startsWith("HTTP/1.")) {
            throw new IOException("the warm-up listener answered \"" + lines[0] + "\", not HTTP/1.1");
        }
        int status = Integer.parseInt(statusLine[1]);
        long length = -1;
        boolean close = false;
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = lines[i].substring(colon + 1).trim();
            if (name.equals("content-length")) {
                length = Long.parseLong(value);
            } else if (name.equals("connection") && value.equalsIgnoreCase("close")) {
                close = true;
            }
        }
        if (length < 0) {
            throw new IOException("the warm-up listener answered " + status + " without a Content-Length");
        }
        in.skipNBytes(length);
        return new Answer(status, close);
    }

    /** A client context that trusts {@code leaf} alone (the listener's own certificate; no host name is checked). */
    private static SSLContext trusting(X509Certificate leaf) throws IOException {
        try {
            KeyStore store = KeyStore.getInstance("JKS");
            store.load(null, null);
            store.setCertificateEntry("warm-up", leaf);
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot set up the warm-up client's TLS: " + e.getMessage(), e);
        }
    }
}
