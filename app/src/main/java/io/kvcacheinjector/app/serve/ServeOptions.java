package io.kvcacheinjector.app.serve;

import io.kvcacheinjector.app.cli.Cli;
import io.kvcacheinjector.app.engines.EngineOptions;
import io.kvcacheinjector.app.wiring.AppModule;

import io.kvcacheinjector.adapters.http.server.TlsProfile;
import io.kvcacheinjector.adapters.http.server.WebhookServerSettings;
import io.kvcacheinjector.adapters.k8s.CacheBlendContract;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The flags of {@code serve}, checked. Reference: {@code docs/reference/server-flags.md}.
 *
 * @param cluster                     {@code --cluster DIR}: serve from the file-backed cluster; empty: the Kubernetes API
 * @param host                        {@code --host}: the address to bind
 * @param port                        {@code --port}: the HTTPS port (0 picks a free one)
 * @param healthPort                  {@code --health-port}: a plain-HTTP port for the kubelet's probes that answers
 *                                    only {@code /healthz} and {@code /readyz}; empty: none
 * @param tlsCert                     {@code --tls-cert}: PEM certificate chain, leaf first; reloaded on change
 * @param tlsKey                      {@code --tls-key}: PEM private key (PKCS#1, SEC 1 or PKCS#8, unencrypted)
 * @param tlsCaOut                    {@code --tls-ca-out}: where to write the generated CA certificate
 * @param tlsClientCa                 {@code --tls-client-ca}: verify client certificates against these CAs
 * @param tlsProfile                  {@code --tls-profile}: {@code intermediate} (TLS 1.3 and 1.2) or {@code modern}
 *                                    (TLS 1.3 only)
 * @param maxBodyBytes                {@code --max-body-bytes}: the largest AdmissionReview accepted
 * @param settingsNamespace           {@code --settings-namespace}: where the Secret {@code gpustack-settings} lives
 * @param cacheBlendAllowedNamespaces {@code --cacheblend-allowed-namespaces}: the CacheBlend allow-list, as given
 * @param cacheBlendFailClosed        {@code --cacheblend-fail-closed}: CacheBlend skips become refusals
 * @param cacheBlendDisabled          {@code --disable-cacheblend}: serve the kvcache contract only; nothing of
 *                                    CacheBlend is read, and its CRD need not be installed
 * @param namespace                   {@code --namespace}: the webhook's own namespace
 * @param shutdownDelay               {@code --shutdown-delay}: how long {@code serve} keeps answering, not ready,
 *                                    after SIGTERM before it stops accepting (0: it stops at once)
 * @param shutdownGrace               {@code --shutdown-grace}: how long reviews in flight may finish after SIGTERM
 * @param enginesDirs                 {@code --engines-dir DIR[,DIR…]}: the engines folders; by default
 *                                    {@code engines/} beside the jar
 * @param warmUpReviews               {@code --warm-up-reviews}: how many reviews {@code serve} answers on a loopback
 *                                    listener of its own before it reports ready (0: none)
 * @param reconcile                   {@code --reconcile-cacheblend}: run the CacheBlendEngine controller, leader-elected
 *                                    on a Lease; empty: nothing is reconciled and nothing is written
 */
public record ServeOptions(Optional<Path> cluster, String host, int port, OptionalInt healthPort,
                    Optional<Path> tlsCert, Optional<Path> tlsKey,
                    Optional<Path> tlsCaOut, Optional<Path> tlsClientCa, TlsProfile tlsProfile, long maxBodyBytes,
                    String settingsNamespace,
                    String cacheBlendAllowedNamespaces, boolean cacheBlendFailClosed, boolean cacheBlendDisabled,
                    String namespace, Duration shutdownDelay, Duration shutdownGrace, List<Path> enginesDirs,
                    int warmUpReviews, Optional<Reconcile> reconcile) implements AppModule.Options {

    /**
     * The CacheBlendEngine controller's leader election (docs/reference/server-flags.md).
     *
     * @param leaseName      {@code --leader-election-lease} (default {@code kvcache-injector-cacheblend})
     * @param leaseNamespace {@code --leader-election-namespace} (default: {@code --namespace})
     * @param identity       this replica in the Lease: {@code $POD_NAME}, else {@code $HOSTNAME}, else host and pid
     */
    record Reconcile(String leaseName, String leaseNamespace, String identity) {
    }

    static final String DEFAULT_LEASE = "kvcache-injector-cacheblend";

    static final String DEFAULT_HOST = "0.0.0.0";
    public static final String DEFAULT_SETTINGS_NAMESPACE = "gpustack-system";
    public static final String DEFAULT_NAMESPACE = "kvcache-injector";

    /** The flags that take a value and the switches (docs/reference/server-flags.md lists each). */
    static final Set<String> VALUED = Set.of("--cluster", "--host", "--port", "--health-port", "--tls-cert", "--tls-key",
            "--tls-ca-out", "--tls-client-ca", "--tls-profile", "--max-body-bytes", "--settings-namespace",
            "--cacheblend-allowed-namespaces", "--namespace", "--shutdown-delay", "--shutdown-grace",
            "--warm-up-reviews", "--leader-election-lease", "--leader-election-namespace", EngineOptions.FLAG);
    static final Set<String> SWITCHES = Set.of("--cacheblend-fail-closed", "--disable-cacheblend",
            "--reconcile-cacheblend");

    /** The flags as given, before they are checked; the {@code serve} command's options. */
    static final class Flags {
        @Option(names = "--cluster", paramLabel = "DIR", description = "Serve from a file-backed cluster (reloaded on"
                + " change); without it, from the Kubernetes API (kubeconfig or in-cluster).")
        String cluster;
        @Option(names = "--host", paramLabel = "ADDR", description = "The bind address (default " + DEFAULT_HOST + ").")
        String host;
        @Option(names = "--port", paramLabel = "N", description = "The HTTPS port (default 8443; 0 picks a free"
                + " port).")
        String port;
        @Option(names = "--health-port", paramLabel = "N", description = "Also answer /healthz and /readyz, and"
                + " nothing else, over plain HTTP on this port, for the kubelet's probes (default: none; the probes"
                + " then use the HTTPS port).")
        String healthPort;
        @Option(names = "--tls-cert", paramLabel = "PEM", description = "The serving certificate chain, leaf first,"
                + " reloaded when the file changes; with --tls-key. Without them, a self-signed certificate for"
                + " localhost/127.0.0.1.")
        String tlsCert;
        @Option(names = "--tls-key", paramLabel = "PEM", description = "Its private key (PKCS#1, SEC 1 or PKCS#8,"
                + " unencrypted).")
        String tlsKey;
        @Option(names = "--tls-ca-out", paramLabel = "FILE", description = "Write the generated certificate's CA"
                + " (PEM) for clients.")
        String tlsCaOut;
        @Option(names = "--tls-client-ca", paramLabel = "PEM", description = "Require client certificates from these"
                + " CAs on the admission paths.")
        String tlsClientCa;
        @Option(names = "--tls-profile", paramLabel = "P", description = "intermediate (default: TLS 1.3, and 1.2 with"
                + " ECDHE and AES-GCM or ChaCha20 only) or modern (TLS 1.3 only); nothing wider.")
        String tlsProfile;
        @Option(names = "--max-body-bytes", paramLabel = "N", description = "The largest AdmissionReview accepted"
                + " (default 3Mi); larger: 413.")
        String maxBodyBytes;
        @Option(names = "--settings-namespace", paramLabel = "NS", description = "The namespace of the Secret"
                + " gpustack-settings (default " + DEFAULT_SETTINGS_NAMESPACE + ").")
        String settingsNamespace;
        @Option(names = "--cacheblend-allowed-namespaces", paramLabel = "NS[,NS...]", description = "The namespaces"
                + " whose CacheBlendEngines any Pod may use.")
        String cacheBlendAllowedNamespaces;
        @Option(names = "--cacheblend-fail-closed", arity = "0", description = "CacheBlend skips become refusals.")
        boolean cacheBlendFailClosed;
        @Option(names = "--disable-cacheblend", arity = "0", description = "Serve the kvcache contract only: no"
                + " CacheBlendEngine or ConfigMap is read, so the CacheBlend CRD need not be installed.")
        boolean cacheBlendDisabled;
        @Option(names = "--namespace", paramLabel = "NS", description = "The webhook's own namespace (default"
                + " $POD_NAMESPACE, else " + DEFAULT_NAMESPACE + ").")
        String namespace;
        @Option(names = "--reconcile-cacheblend", arity = "0", description = "Also run the CacheBlendEngine"
                + " controller, leader-elected on a Lease.")
        boolean reconcile;
        @Option(names = "--leader-election-lease", paramLabel = "NAME", description = "Its Lease (default "
                + DEFAULT_LEASE + ").")
        String leaseName;
        @Option(names = "--leader-election-namespace", paramLabel = "NS", description = "The Lease's namespace"
                + " (default --namespace).")
        String leaseNamespace;
        @Option(names = "--shutdown-delay", paramLabel = "D", description = "After SIGTERM, keep answering (not ready)"
                + " this long before closing the port (default 5s; 0: close at once; a second signal ends it).")
        String shutdownDelay;
        @Option(names = "--shutdown-grace", paramLabel = "D", description = "The time reviews in flight get after"
                + " that (default 10s).")
        String shutdownGrace;
        @Option(names = "--warm-up-reviews", paramLabel = "N", description = "Before reporting ready, answer N"
                + " example reviews on a loopback listener of its own, so that the JIT has compiled the review path"
                + " (default 0: none; the chart sets 5000).")
        String warmUpReviews;
        @Mixin
        EngineOptions engines = new EngineOptions();
    }

    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)?");
    private static final Pattern SIZE = Pattern.compile("(\\d+)(Ki|Mi|Gi)?");

    public ServeOptions {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(healthPort, "healthPort");
        Objects.requireNonNull(tlsCert, "tlsCert");
        Objects.requireNonNull(tlsKey, "tlsKey");
        Objects.requireNonNull(tlsCaOut, "tlsCaOut");
        Objects.requireNonNull(tlsClientCa, "tlsClientCa");
        Objects.requireNonNull(tlsProfile, "tlsProfile");
        Objects.requireNonNull(settingsNamespace, "settingsNamespace");
        Objects.requireNonNull(cacheBlendAllowedNamespaces, "cacheBlendAllowedNamespaces");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(shutdownDelay, "shutdownDelay");
        Objects.requireNonNull(shutdownGrace, "shutdownGrace");
        enginesDirs = List.copyOf(enginesDirs);
        Objects.requireNonNull(reconcile, "reconcile");
        if (warmUpReviews < 0) {
            throw new IllegalArgumentException("warmUpReviews must be 0 or more, not " + warmUpReviews);
        }
    }

    /**
     * Parses and checks the flags ({@link #of}).
     *
     * @throws IllegalArgumentException with a one-line reason naming the flag and the fix
     */
    public static ServeOptions parse(String[] args, Map<String, String> env) {
        return of(Cli.parse(new Flags(), args), env);
    }

    /**
     * Checks the flags. {@code env} supplies {@code POD_NAMESPACE}, the default of {@code --namespace}.
     *
     * @throws IllegalArgumentException with a one-line reason naming the flag and the fix
     */
    static ServeOptions of(Flags cli, Map<String, String> env) {
        Optional<Path> cert = Optional.ofNullable(cli.tlsCert).map(Path::of);
        Optional<Path> key = Optional.ofNullable(cli.tlsKey).map(Path::of);
        if (cert.isPresent() != key.isPresent()) {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together: give both, or neither to serve"
                    + " a certificate generated at start-up");
        }
        Optional<Path> caOut = Optional.ofNullable(cli.tlsCaOut).map(Path::of);
        if (caOut.isPresent() && cert.isPresent()) {
            throw new IllegalArgumentException("--tls-ca-out writes the CA of the generated certificate, and"
                    + " --tls-cert/--tls-key serve your own; drop --tls-ca-out and give clients your CA");
        }
        String envNamespace = env.getOrDefault("POD_NAMESPACE", "");
        String namespace = nonBlank("--namespace", cli.namespace).orElse(envNamespace.isBlank() ? DEFAULT_NAMESPACE
                : envNamespace.trim());
        Optional<Reconcile> reconcile = Optional.empty();
        if (cli.reconcile) {
            if (cli.cluster != null) {
                throw new IllegalArgumentException("--reconcile-cacheblend writes to the Kubernetes API and --cluster"
                        + " serves from files; drop one of them");
            }
            if (cli.cacheBlendDisabled) {
                throw new IllegalArgumentException("--reconcile-cacheblend reconciles CacheBlendEngines and"
                        + " --disable-cacheblend says their CRD is not installed; drop one of them");
            }
            String identity = firstNonBlank(env.get("POD_NAME"), env.get("HOSTNAME"))
                    .orElseGet(() -> hostName() + "-" + ProcessHandle.current().pid());
            reconcile = Optional.of(new Reconcile(nonBlank("--leader-election-lease", cli.leaseName)
                    .orElse(DEFAULT_LEASE),
                    nonBlank("--leader-election-namespace", cli.leaseNamespace).orElse(namespace), identity));
        } else if (cli.leaseName != null || cli.leaseNamespace != null) {
            throw new IllegalArgumentException("--leader-election-lease and --leader-election-namespace apply to the"
                    + " CacheBlendEngine controller; add --reconcile-cacheblend or drop them");
        }
        int port = Optional.ofNullable(cli.port).map(v -> port("--port", v)).orElse(WebhookServerSettings.DEFAULT_PORT);
        OptionalInt healthPort = cli.healthPort == null ? OptionalInt.empty()
                : OptionalInt.of(port("--health-port", cli.healthPort));
        if (healthPort.isPresent() && healthPort.getAsInt() != 0 && healthPort.getAsInt() == port) {
            throw new IllegalArgumentException("--health-port " + port + " is the HTTPS port (--port); give the"
                    + " plain-HTTP probes a port of their own, for example --health-port 8081");
        }
        return new ServeOptions(
                Optional.ofNullable(cli.cluster).map(Path::of),
                nonBlank("--host", cli.host).orElse(DEFAULT_HOST),
                port,
                healthPort,
                cert,
                key,
                caOut,
                Optional.ofNullable(cli.tlsClientCa).map(Path::of),
                Optional.ofNullable(cli.tlsProfile).map(TlsProfile::of).orElse(TlsProfile.INTERMEDIATE),
                Optional.ofNullable(cli.maxBodyBytes).map(ServeOptions::size)
                        .orElse(WebhookServerSettings.DEFAULT_MAX_BODY_BYTES),
                nonBlank("--settings-namespace", cli.settingsNamespace).orElse(DEFAULT_SETTINGS_NAMESPACE),
                Optional.ofNullable(cli.cacheBlendAllowedNamespaces).orElse(""),
                cli.cacheBlendFailClosed,
                cli.cacheBlendDisabled,
                namespace,
                Optional.ofNullable(cli.shutdownDelay).map(v -> duration("--shutdown-delay", v))
                        .orElse(WebhookServerSettings.DEFAULT_SHUTDOWN_DELAY),
                Optional.ofNullable(cli.shutdownGrace).map(v -> duration("--shutdown-grace", v))
                        .orElse(WebhookServerSettings.DEFAULT_SHUTDOWN_GRACE),
                cli.engines.folders(),
                Optional.ofNullable(cli.warmUpReviews).map(ServeOptions::warmUpReviews).orElse(0),
                reconcile);
    }

    private static Optional<String> firstNonBlank(String... values) {
        for (String v : values) {
            if (v != null && !v.isBlank()) {
                return Optional.of(v.trim());
            }
        }
        return Optional.empty();
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "serve";
        }
    }

    /** Whether the cluster view serves the CacheBlend contract. */
    @Override
    public CacheBlendContract cacheBlendContract() {
        return CacheBlendContract.disabledWhen(cacheBlendDisabled);
    }

    /** The server's listening settings. */
    WebhookServerSettings serverSettings() {
        return WebhookServerSettings.defaults().withHost(host).withPort(port).withMaxBodyBytes(maxBodyBytes)
                .withShutdownDelay(shutdownDelay).withShutdownGrace(shutdownGrace).withTlsProfile(tlsProfile)
                .withHealthPort(healthPort);
    }

    private static Optional<String> nonBlank(String flag, String value) {
        if (value != null && value.isBlank()) {
            throw new IllegalArgumentException(flag + " needs a value, not an empty string");
        }
        return Optional.ofNullable(value).map(String::trim);
    }

    /** The most {@code --warm-up-reviews} accepts: about a minute of a cold JVM's start on one CPU. */
    static final int MAX_WARM_UP_REVIEWS = 100_000;

    static int warmUpReviews(String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 0 && n <= MAX_WARM_UP_REVIEWS) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through
        }
        throw new IllegalArgumentException("--warm-up-reviews must be a number of reviews 0.." + MAX_WARM_UP_REVIEWS
                + " (0: no warm-up; the chart sets 5000), not \"" + value + "\"");
    }

    static int port(String flag, String value) {
        try {
            int p = Integer.parseInt(value.trim());
            if (p >= 0 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // falls through
        }
        throw new IllegalArgumentException(flag + " must be a port number 0..65535 (0 picks a free port), not \""
                + value + "\"");
    }

    /** Bytes, optionally with {@code Ki}, {@code Mi} or {@code Gi}: {@code 3145728}, {@code 3Mi}. */
    static long size(String value) {
        Matcher m = SIZE.matcher(value.trim());
        if (m.matches()) {
            try {
                long n = Long.parseLong(m.group(1));
                long unit = m.group(2) == null ? 1 : switch (m.group(2)) {
                    case "Ki" -> 1024L;
                    case "Mi" -> 1024L * 1024;
                    default -> 1024L * 1024 * 1024;
                };
                long bytes = Math.multiplyExact(n, unit);
                if (bytes >= 1) {
                    return bytes;
                }
            } catch (ArithmeticException | NumberFormatException e) {
                // falls through
            }
        }
        throw new IllegalArgumentException("--max-body-bytes must be a positive number of bytes, optionally with Ki,"
                + " Mi or Gi (for example 3145728 or 3Mi), not \"" + value + "\"");
    }

    /** A duration: {@code 10s}, {@code 500ms}, {@code 2m}, {@code 1h}, a bare number of seconds, or ISO-8601. */
    static Duration duration(String value) {
        return duration("--shutdown-grace", value);
    }

    /** {@link #duration(String)} for {@code flag}, which the error message names. */
    static Duration duration(String flag, String value) {
        String v = value.trim();
        Matcher m = DURATION.matcher(v);
        if (m.matches()) {
            try {
                long n = Long.parseLong(m.group(1));
                String unit = m.group(2) == null ? "s" : m.group(2);
                return switch (unit) {
                    case "ms" -> Duration.ofMillis(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofSeconds(n);
                };
            } catch (ArithmeticException | NumberFormatException e) {
                throw new IllegalArgumentException(flag + " \"" + value + "\" is too long; give at most a few"
                        + " minutes, such as 5s or 2m");
            }
        }
        try {
            Duration d = Duration.parse(v);
            if (!d.isNegative()) {
                return d;
            }
        } catch (DateTimeParseException e) {
            // falls through
        }
        throw new IllegalArgumentException(flag + " must be a duration such as 10s, 500ms or 2m (0 for none), not \""
                + value + "\"");
    }
}
