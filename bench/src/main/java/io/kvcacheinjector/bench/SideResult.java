package io.kvcacheinjector.bench;

/**
 * What one side measured over all its rounds.
 *
 * @param side         which server
 * @param requests     answers received (any status)
 * @param errors       answers other than HTTP 200, and broken connections
 * @param elapsedNanos the wall time of the side's rounds, added up
 * @param cpuNanos     the CPU time the whole process used during the side's rounds (server, client, JIT, GC)
 * @param p50Nanos     median latency (send to full answer, on the client)
 * @param p90Nanos     90th percentile
 * @param p99Nanos     99th percentile
 * @param maxNanos     the slowest request
 * @param meanNanos    the mean
 */
public record SideResult(Side side, long requests, long errors, long elapsedNanos, long cpuNanos, long p50Nanos, long p90Nanos,
                         long p99Nanos, long maxNanos, double meanNanos) {

    /** The summary of {@code latency} over {@code elapsedNanos}. */
    static SideResult of(Side side, long requests, long errors, long elapsedNanos, long cpuNanos,
                         LatencyHistogram latency) {
        return new SideResult(side, requests, errors, elapsedNanos, cpuNanos, latency.percentile(0.50),
                latency.percentile(0.90), latency.percentile(0.99), latency.max(), latency.mean());
    }

    /** Answers per second over the side's rounds. */
    public double requestsPerSecond() {
        return elapsedNanos <= 0 ? 0 : requests * 1e9 / elapsedNanos;
    }

    /**
     * The process's CPU time per answer, in microseconds: what one review costs the server and the client together
     * (the client's share is the same on both sides); 0 when unknown.
     */
    public double cpuMicrosPerRequest() {
        return requests == 0 || cpuNanos <= 0 ? 0 : cpuNanos / 1e3 / requests;
    }

    /** The share of the machine's processors the process used during the side's rounds (1.0 = all of them). */
    public double cpuShare(int processors) {
        return elapsedNanos <= 0 || cpuNanos <= 0 ? 0 : (double) cpuNanos / elapsedNanos / processors;
    }

    /** The measured seconds. */
    public double seconds() {
        return elapsedNanos / 1e9;
    }
}
