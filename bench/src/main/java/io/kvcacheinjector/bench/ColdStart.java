package io.kvcacheinjector.bench;

import java.io.IOException;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * The first reviews the real webhook answers after it became ready, before any warm-up: one connection, one
 * review at a time, the mix in turn. This is what a freshly started webhook adds to the first Pod creations of a
 * cluster, while its code still runs in the interpreter and the JIT compiles it.
 *
 * @param requests     the reviews sent
 * @param firstNanos   the latency of the very first one
 * @param p50Nanos     the median
 * @param p90Nanos     the 90th percentile
 * @param maxNanos     the slowest
 * @param errors       answers other than HTTP 200, and I/O failures
 */
public record ColdStart(int requests, long firstNanos, long p50Nanos, long p90Nanos, long maxNanos, int errors) {
    /** How many reviews the cold phase sends. */
    public static final int REQUESTS = 200;

    static ColdStart measure(SSLContext context, int port, List<BenchReview> mix, int requests) {
        LatencyHistogram latency = new LatencyHistogram();
        long first = -1;
        int errors = 0;
        KeepAliveConnection c = null;
        try {
            for (int i = 0; i < requests; i++) {
                BenchReview review = mix.get(i % mix.size());
                byte[] request = KeepAliveConnection.request("POST", "/" + review.webhook().path(), review.body());
                try {
                    if (c == null || !c.open()) {
                        c = new KeepAliveConnection(context, port);
                    }
                    long t0 = System.nanoTime();
                    KeepAliveConnection.Response r = c.exchange(request);
                    long t = System.nanoTime() - t0;
                    latency.record(t);
                    if (first < 0) {
                        first = t;
                    }
                    if (r.status() != 200) {
                        errors++;
                    }
                } catch (IOException e) {
                    errors++;
                    if (c != null) {
                        c.close();
                    }
                    c = null;
                }
            }
        } finally {
            if (c != null) {
                c.close();
            }
        }
        return new ColdStart(requests, Math.max(0, first), latency.percentile(0.5), latency.percentile(0.9),
                latency.max(), errors);
    }
}
