package io.kvcacheinjector.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;

/**
 * A closed-loop load: {@code connections} client threads, each holding one keep-alive TLS connection to each
 * side's server and sending its next request as soon as the previous answer arrived (one request in flight per
 * connection). Each thread cycles through the review mix from its own starting point, so every side gets the
 * same mix. The same code, with the same prepared request bytes, drives both sides; only the port differs.
 */
final class ClosedLoopClient implements AutoCloseable {
    /** What one round measured. */
    record Round(Side side, long requests, long errors, long elapsedNanos, long cpuNanos, LatencyHistogram latency) {
    }

    private final SSLContext context;
    private final Map<Side, Integer> ports;
    private final List<BenchReview> mix;
    private final Map<Side, byte[][]> requests = new EnumMap<>(Side.class);
    private final Worker[] workers;
    private final ExecutorService threads;
    private final Map<String, byte[]> firstAnswers = new ConcurrentHashMap<>();
    private final Map<String, String> firstErrors = new ConcurrentHashMap<>();

    ClosedLoopClient(SSLContext context, Map<Side, Integer> ports, int connections, List<BenchReview> mix) {
        if (mix.isEmpty()) {
            throw new IllegalArgumentException("the review mix is empty");
        }
        this.context = context;
        this.ports = Map.copyOf(ports);
        this.mix = List.copyOf(mix);
        for (Side side : Side.values()) {
            byte[][] r = new byte[mix.size()][];
            for (int i = 0; i < mix.size(); i++) {
                r[i] = KeepAliveConnection.request("POST", "/" + mix.get(i).webhook().path(), mix.get(i).body());
            }
            requests.put(side, r);
        }
        workers = new Worker[connections];
        for (int i = 0; i < connections; i++) {
            workers[i] = new Worker(i);
        }
        AtomicInteger n = new AtomicInteger();
        threads = Executors.newFixedThreadPool(connections, r -> {
            Thread t = new Thread(r, "bench-client-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Drives {@code side} on every connection for {@code length}; returns when every connection has stopped. */
    Round round(Side side, Duration length) throws InterruptedException {
        long cpuStart = ProcessFacts.cpuNanos();
        long start = System.nanoTime();
        long deadline = start + length.toNanos();
        List<Future<Worker.Result>> results = new ArrayList<>(workers.length);
        for (Worker w : workers) {
            results.add(threads.submit(() -> w.drive(side, deadline)));
        }
        long requests = 0;
        long errors = 0;
        LatencyHistogram latency = new LatencyHistogram();
        for (Future<Worker.Result> f : results) {
            try {
                Worker.Result r = f.get();
                requests += r.requests;
                errors += r.errors;
                latency.add(r.latency);
            } catch (ExecutionException e) {
                errors++;
                firstErrors.putIfAbsent(side.label() + " client", String.valueOf(e.getCause()));
            }
        }
        long elapsed = System.nanoTime() - start;
        return new Round(side, requests, errors, elapsed, ProcessFacts.cpuNanos() - cpuStart, latency);
    }

    /** The first HTTP 200 body each side answered for each review, keyed {@code side/review}. */
    Optional<byte[]> firstAnswer(Side side, BenchReview review) {
        return Optional.ofNullable(firstAnswers.get(side.label() + "/" + review.name()));
    }

    /** The first failure of each kind seen (a status other than 200, a broken connection), for the report. */
    List<String> firstErrors() {
        return firstErrors.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).sorted().toList();
    }

    @Override
    public void close() {
        threads.shutdownNow();
        for (Worker w : workers) {
            w.close();
        }
    }

    private final class Worker {
        record Result(long requests, long errors, LatencyHistogram latency) {
        }

        private final Map<Side, KeepAliveConnection> connections = new EnumMap<>(Side.class);
        private final boolean[][] answerKept = new boolean[Side.values().length][mix.size()];
        private int next;

        Worker(int index) {
            this.next = index % mix.size();
        }

        Result drive(Side side, long deadline) {
            byte[][] prepared = requests.get(side);
            LatencyHistogram latency = new LatencyHistogram();
            long count = 0;
            long errors = 0;
            while (true) {
                KeepAliveConnection c = connections.get(side);
                if (c == null || !c.open()) {
                    try {
                        c = new KeepAliveConnection(context, ports.get(side));
                        connections.put(side, c);
                    } catch (IOException e) {
                        errors++;
                        firstErrors.putIfAbsent(side.label() + " connect", e.toString());
                        break;
                    }
                }
                long t0 = System.nanoTime();
                if (t0 - deadline >= 0) {
                    break;
                }
                int i = next;
                next = (next + 1) % prepared.length;
                try {
                    int status = c.send(prepared[i]);
                    latency.record(System.nanoTime() - t0);
                    count++;
                    if (status == 200) {
                        if (!answerKept[side.ordinal()][i]) {
                            answerKept[side.ordinal()][i] = true;
                            firstAnswers.putIfAbsent(side.label() + "/" + mix.get(i).name(), c.lastBody());
                        }
                    } else {
                        errors++;
                        firstErrors.putIfAbsent(side.label() + " HTTP " + status, mix.get(i).name() + ": "
                                + new String(c.lastBody(), java.nio.charset.StandardCharsets.UTF_8));
                    }
                } catch (IOException e) {
                    errors++;
                    firstErrors.putIfAbsent(side.label() + " I/O", mix.get(i).name() + ": " + e);
                    c.close();
                }
            }
            return new Result(count, errors, latency);
        }

        void close() {
            connections.values().forEach(KeepAliveConnection::close);
        }
    }
}
