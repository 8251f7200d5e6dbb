package io.kvcacheinjector.adapters.http.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLParameters;

/**
 * What the listener speaks: protocols, cipher suites and key-exchange groups (docs/reference/endpoints.md, "TLS
 * profile"; why: docs/explanation/decisions.md, "The TLS profile (issue 30)"). Set on the listener in code, so that no
 * JVM option or {@code java.security} edit can widen it; {@code --tls-profile} chooses one, and there is nothing wider
 * than {@link #INTERMEDIATE}.
 */
public enum TlsProfile {
    /**
     * Mozilla's "intermediate" configuration: TLS 1.3, and TLS 1.2 with ECDHE and an AEAD cipher only (AES-GCM or
     * ChaCha20-Poly1305). The finite-field DHE suites Mozilla also lists are left out.
     */
    INTERMEDIATE(List.of("TLSv1.3", "TLSv1.2")),
    /** Mozilla's "modern" configuration: TLS 1.3 only. */
    MODERN(List.of("TLSv1.3"));

    /** The TLS 1.3 cipher suites, in the JDK's order of preference. */
    public static final List<String> TLS13_SUITES = List.of("TLS_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256",
            "TLS_CHACHA20_POLY1305_SHA256");

    /**
     * The TLS 1.2 cipher suites: for an ECDSA and for an RSA certificate. The JDK negotiates only those matching the
     * serving key, so a listener whose certificate is reloaded with a key of another type needs no new settings.
     */
    public static final List<String> TLS12_SUITES = List.of(
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");

    /** The key-exchange groups, for both protocols: X25519, P-256, P-384 (no X448, P-521 or finite-field group). */
    public static final List<String> NAMED_GROUPS = List.of("x25519", "secp256r1", "secp384r1");

    /** The JSSE switch that makes a server refuse a renegotiation its client starts (read once, at first use). */
    static final String REJECT_CLIENT_RENEGOTIATION = "jdk.tls.rejectClientInitiatedRenegotiation";

    static {
        rejectClientRenegotiation();
    }

    private final List<String> protocols;

    TlsProfile(List<String> protocols) {
        this.protocols = protocols;
    }

    /** The protocols enabled, newest first. */
    public List<String> protocols() {
        return protocols;
    }

    /** The cipher suites enabled, TLS 1.3's first. */
    public List<String> cipherSuites() {
        List<String> suites = new ArrayList<>(TLS13_SUITES);
        if (protocols.contains("TLSv1.2")) {
            suites.addAll(TLS12_SUITES);
        }
        return List.copyOf(suites);
    }

    /** Its name on the command line: {@code intermediate}, {@code modern}. */
    public String flagValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The profile called {@code value} on the command line. */
    public static TlsProfile of(String value) {
        for (TlsProfile p : values()) {
            if (p.flagValue().equals(value.trim().toLowerCase(Locale.ROOT))) {
                return p;
            }
        }
        throw new IllegalArgumentException("--tls-profile must be intermediate (TLS 1.3 and 1.2, the default) or"
                + " modern (TLS 1.3 only), not \"" + value + "\"");
    }

    /**
     * The listener's parameters: this profile's protocols, suites and groups; client certificates asked for (not
     * required) when {@code wantClientCertificates}.
     */
    SSLParameters sslParameters(boolean wantClientCertificates) {
        SSLParameters p = new SSLParameters(cipherSuites().toArray(String[]::new),
                protocols.toArray(String[]::new));
        p.setNamedGroups(NAMED_GROUPS.toArray(String[]::new));
        p.setWantClientAuth(wantClientCertificates);
        return p;
    }

    /**
     * Makes this JVM's TLS servers refuse client-initiated renegotiation (TLS 1.2; TLS 1.3 has none). JSSE reads the
     * property once, when its first server handshake begins, so this must run before that: {@code Main} calls it
     * first thing, and loading this class (before any listener is made) calls it again.
     */
    public static void rejectClientRenegotiation() {
        System.setProperty(REJECT_CLIENT_RENEGOTIATION, "true");
    }
}
