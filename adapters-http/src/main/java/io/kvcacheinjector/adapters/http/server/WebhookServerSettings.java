package io.kvcacheinjector.adapters.http.server;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * How the webhook server listens.
 *
 * @param host          the address to bind ({@code 0.0.0.0} for every interface)
 * @param port          the HTTPS port; 0 picks a free one (tests)
 * @param maxBodyBytes  the largest AdmissionReview body accepted; a larger one is answered 413
 * @param shutdownDelay how long a stop keeps accepting and answering, not ready, before the graceful stop begins
 *                      ({@link WebhookServer#shutdown(WebhookServer.DelayWait)}); zero: the stop begins at once
 * @param shutdownGrace how long a graceful stop waits for reviews in flight
 * @param tlsPollPeriod how often the certificate files are checked for a rotation
 * @param tlsProfile    the protocols, cipher suites and groups the listener speaks
 * @param healthPort    a second, plain-HTTP listener on the same host that answers only {@code GET /healthz} and
 *                      {@code GET /readyz}, for the kubelet's probes (0 picks a free one); empty: none, and the
 *                      probes use the HTTPS port like every other client
 */
public record WebhookServerSettings(String host, int port, long maxBodyBytes, Duration shutdownDelay,
                                    Duration shutdownGrace, Duration tlsPollPeriod, TlsProfile tlsProfile,
                                    OptionalInt healthPort) {
    /** The default port. */
    public static final int DEFAULT_PORT = 8443;
    /** The default body limit: 3 MiB, the API server's own request limit. */
    public static final long DEFAULT_MAX_BODY_BYTES = 3L * 1024 * 1024;
    /**
     * The default delay between the stop request and the stop: long enough for a terminating Pod's endpoint to
     * leave the API server's view (usually well under a second, a few seconds on a loaded control plane), short
     * against Kubernetes' default 30 s termination grace period (docs/explanation/decisions.md).
     */
    public static final Duration DEFAULT_SHUTDOWN_DELAY = Duration.ofSeconds(5);
    /** The default grace period for reviews in flight at shutdown. */
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(10);

    public WebhookServerSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(shutdownDelay, "shutdownDelay");
        Objects.requireNonNull(shutdownGrace, "shutdownGrace");
        Objects.requireNonNull(tlsPollPeriod, "tlsPollPeriod");
        Objects.requireNonNull(tlsProfile, "tlsProfile");
        Objects.requireNonNull(healthPort, "healthPort");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, not " + port);
        }
        if (healthPort.isPresent() && (healthPort.getAsInt() < 0 || healthPort.getAsInt() > 65535)) {
            throw new IllegalArgumentException("the health port must be 0..65535, not " + healthPort.getAsInt());
        }
        if (healthPort.isPresent() && healthPort.getAsInt() != 0 && healthPort.getAsInt() == port) {
            throw new IllegalArgumentException("the health port must differ from the HTTPS port " + port);
        }
        if (maxBodyBytes < 1) {
            throw new IllegalArgumentException("the body limit must be at least 1 byte, not " + maxBodyBytes);
        }
        if (shutdownDelay.isNegative() || shutdownGrace.isNegative() || tlsPollPeriod.isNegative()
                || tlsPollPeriod.isZero()) {
            throw new IllegalArgumentException("durations must be positive");
        }
    }

    /** Every default, on every interface. */
    public static WebhookServerSettings defaults() {
        return new WebhookServerSettings("0.0.0.0", DEFAULT_PORT, DEFAULT_MAX_BODY_BYTES, DEFAULT_SHUTDOWN_DELAY,
                DEFAULT_SHUTDOWN_GRACE, java.time.Duration.ofSeconds(2), TlsProfile.INTERMEDIATE, OptionalInt.empty());
    }

    public WebhookServerSettings withPort(int newPort) {
        return new WebhookServerSettings(host, newPort, maxBodyBytes, shutdownDelay, shutdownGrace, tlsPollPeriod,
                tlsProfile, healthPort);
    }

    public WebhookServerSettings withHost(String newHost) {
        return new WebhookServerSettings(newHost, port, maxBodyBytes, shutdownDelay, shutdownGrace, tlsPollPeriod,
                tlsProfile, healthPort);
    }

    public WebhookServerSettings withMaxBodyBytes(long newMax) {
        return new WebhookServerSettings(host, port, newMax, shutdownDelay, shutdownGrace, tlsPollPeriod,
                tlsProfile, healthPort);
    }

    public WebhookServerSettings withShutdownDelay(Duration newDelay) {
        return new WebhookServerSettings(host, port, maxBodyBytes, newDelay, shutdownGrace, tlsPollPeriod,
                tlsProfile, healthPort);
    }

    public WebhookServerSettings withShutdownGrace(Duration newGrace) {
        return new WebhookServerSettings(host, port, maxBodyBytes, shutdownDelay, newGrace, tlsPollPeriod,
                tlsProfile, healthPort);
    }

    public WebhookServerSettings withTlsPollPeriod(Duration newPeriod) {
        return new WebhookServerSettings(host, port, maxBodyBytes, shutdownDelay, shutdownGrace, newPeriod,
                tlsProfile, healthPort);
    }

    public WebhookServerSettings withTlsProfile(TlsProfile newProfile) {
        return new WebhookServerSettings(host, port, maxBodyBytes, shutdownDelay, shutdownGrace, tlsPollPeriod,
                newProfile, healthPort);
    }

    /** With a plain-HTTP health listener on {@code newHealthPort} (0: a free one), or none when empty. */
    public WebhookServerSettings withHealthPort(OptionalInt newHealthPort) {
        return new WebhookServerSettings(host, port, maxBodyBytes, shutdownDelay, shutdownGrace, tlsPollPeriod,
                tlsProfile, newHealthPort);
    }
}
