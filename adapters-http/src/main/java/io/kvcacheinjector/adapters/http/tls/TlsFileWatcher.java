package io.kvcacheinjector.adapters.http.tls;

import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Polls the certificate files and applies new material without a restart. Each poll compares a cheap stamp (real
 * path, modification time and size of each file, so a swapped symlink counts); when it moved, the contents are
 * read and hashed, and only content that differs from the last content tried is parsed. Material that does not
 * load (garbage, a key that does not match, an expired certificate), or that the server refuses, keeps the
 * previous certificate and logs one error per distinct content.
 */
public final class TlsFileWatcher implements AutoCloseable {
    /** The default time between polls. */
    public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(2);

    private final CertificateFiles files;
    private final Consumer<TlsMaterial> apply;
    private final JsonLog log;
    private final TlsMetrics metrics;
    private final Clock clock;
    private ScheduledExecutorService scheduler;

    private String lastStamp = "";
    private String lastTriedHash = "";

    /**
     * @param apply called with new material on the polling thread; throwing rejects it (the previous certificate
     *              stays)
     */
    public TlsFileWatcher(CertificateFiles files, Consumer<TlsMaterial> apply, JsonLog log, TlsMetrics metrics,
                          Clock clock) {
        this.files = Objects.requireNonNull(files, "files");
        this.apply = Objects.requireNonNull(apply, "apply");
        this.log = Objects.requireNonNull(log, "log");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Loads the material the server starts with, and remembers it as the baseline for later polls. Does not call
     * {@code apply}.
     */
    public synchronized TlsLoad loadInitial() {
        lastStamp = files.stamp();
        CertificateFiles.Snapshot snapshot;
        try {
            snapshot = files.read();
        } catch (IOException e) {
            return files.load(clock.instant());
        }
        lastTriedHash = snapshot.sha256();
        TlsLoad load = files.parse(snapshot, clock.instant());
        if (load instanceof TlsLoad.Loaded loaded) {
            metrics.serving(loaded.material().serving().leaf());
        }
        return load;
    }

    /** Checks the files once; returns whether new material was applied. */
    public synchronized boolean poll() {
        String stamp = files.stamp();
        if (stamp.equals(lastStamp)) {
            return false;
        }
        CertificateFiles.Snapshot snapshot;
        try {
            snapshot = files.read();
        } catch (IOException e) {
            // mid-swap or removed: try again on the next poll, without remembering this stamp
            return false;
        }
        lastStamp = stamp;
        if (snapshot.sha256().equals(lastTriedHash)) {
            return false;
        }
        lastTriedHash = snapshot.sha256();
        TlsLoad load = files.parse(snapshot, clock.instant());
        switch (load) {
            case TlsLoad.Failed failed -> {
                metrics.reloadFailed();
                log.error("tls-reload-failed", "reason", failed.reason(),
                        "note", "the previous certificate is still served");
                return false;
            }
            case TlsLoad.Loaded loaded -> {
                try {
                    apply.accept(loaded.material());
                } catch (RuntimeException e) {
                    metrics.reloadFailed();
                    log.error("tls-reload-failed", "reason", "the server refused the new material ("
                                    + e.getClass().getSimpleName() + ": " + e.getMessage() + ")",
                            "note", "the previous certificate is still served");
                    return false;
                }
                metrics.reloadApplied();
                metrics.serving(loaded.material().serving().leaf());
                log.info("tls-reloaded", "certificate", files.certificate().toString(),
                        "subject", loaded.material().serving().leaf().getSubjectX500Principal().getName(),
                        "notAfter", loaded.material().serving().leaf().getNotAfter().toInstant().toString(),
                        "sha256", snapshot.sha256());
                return true;
            }
        }
    }

    /** Polls every {@code period} on a daemon thread until {@link #close()}. */
    public synchronized void start(Duration period) {
        if (scheduler != null) {
            throw new IllegalStateException("already started");
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tls-file-watcher");
            t.setDaemon(true);
            return t;
        });
        long millis = Math.max(1, period.toMillis());
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                poll();
            } catch (RuntimeException e) {
                log.error("tls-reload-failed", "reason", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }, millis, millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }
}
