package io.kvcacheinjector.app.check;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kvcacheinjector.adapters.http.tls.Pem;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The serving certificate's expiry ({@code certificate-expired}, {@code certificate-expiring}), read from the TLS
 * Secret the install's Deployment mounts (the chart's {@code <fullname>-tls}, written by the chart's self-signed
 * path or by cert-manager), the most common outage of a webhook before it happens. A Secret that does not exist is
 * not looked at (the webhook's Pods would not start: {@code webhook-unready} says so); one that may not be read is
 * {@code not-checked}.
 */
final class CertificateChecks {
    /** A certificate that expires sooner than this is a warning; cert-manager's default renewBefore, the chart's. */
    static final Duration WARN_BEFORE = Duration.ofDays(30);
    /** Set by cert-manager on the Secrets it issues. */
    static final String CERTIFICATE_NAME = "cert-manager.io/certificate-name";
    /** The chart's annotation on the webhook configuration with tls.certManager.enabled: namespace/Certificate. */
    static final String INJECT_CA_FROM = "cert-manager.io/inject-ca-from";

    private final KubernetesClient client;
    private final Findings findings;
    private final Clock clock;

    CertificateChecks(KubernetesClient client, Findings findings, Clock clock) {
        this.client = client;
        this.findings = findings;
        this.clock = clock;
    }

    void checkServingCertificate(Install install, InstallChecks.InstallArgs args) {
        Optional<Install.Registered> registered = install.kvcache().or(install::cacheBlend);
        if (registered.isEmpty() || install.releaseNamespace().isEmpty()) {
            return;
        }
        String namespace = install.releaseNamespace().get();
        // the Secret the Deployment mounts; without the Deployment, the chart's name for it
        String name = args.tlsSecret().orElse(registered.get().configuration() + "-tls");
        String object = "Secret " + namespace + "/" + name;
        Secret secret;
        try {
            secret = client.secrets().inNamespace(namespace).withName(name).get();
        } catch (KubernetesClientException e) {
            findings.notChecked(object + " (" + Reads.reason(e) + "; the serving certificate's expiry was not"
                    + " checked)");
            return;
        }
        if (secret == null) {
            return;
        }
        String encoded = secret.getData() == null ? null : secret.getData().get("tls.crt");
        X509Certificate leaf;
        try {
            List<X509Certificate> chain = Pem.certificates(new String(Base64.getMimeDecoder().decode(
                    encoded == null ? "" : encoded), StandardCharsets.US_ASCII));
            leaf = chain.get(0);
        } catch (Pem.PemException | IllegalArgumentException | IndexOutOfBoundsException e) {
            findings.notChecked(object + " (its tls.crt holds no PEM certificate; the serving certificate's expiry"
                    + " was not checked)");
            return;
        }
        Instant notAfter = leaf.getNotAfter().toInstant();
        Instant now = clock.instant();
        Duration left = Duration.between(now, notAfter);
        if (left.compareTo(WARN_BEFORE) >= 0) {
            return;
        }
        String certificate = "the serving certificate in " + object + " (tls.crt, subject "
                + leaf.getSubjectX500Principal().getName() + ")";
        String fix = fix(secret, registered.get(), namespace, name, args.release());
        if (left.isNegative() || left.isZero()) {
            findings.add(FindingCode.CERTIFICATE_EXPIRED, object, certificate + " expired at " + notAfter
                    + " (" + days(left.negated()) + " ago), so the API server refuses the TLS handshake and every"
                    + " call of " + registered.get().object() + " fails", fix);
        } else {
            findings.add(FindingCode.CERTIFICATE_EXPIRING, object, certificate + " expires at " + notAfter
                    + ", in " + days(left) + " (under " + WARN_BEFORE.toDays() + " days); from then on the API"
                    + " server refuses the TLS handshake and every call of " + registered.get().object() + " fails",
                    fix);
        }
    }

    /** Renewal by cert-manager when it issued the Secret, else the chart's self-signed path. */
    private static String fix(Secret secret, Install.Registered registered, String namespace, String name,
                              Optional<String> release) {
        Map<String, String> annotations = Optional.ofNullable(secret.getMetadata().getAnnotations()).orElse(Map.of());
        Map<String, String> installAnnotations = registered.configurationAnnotations();
        Optional<String> certificate = Optional.ofNullable(annotations.get(CERTIFICATE_NAME))
                .map(c -> namespace + "/" + c)
                .or(() -> Optional.ofNullable(installAnnotations.get(INJECT_CA_FROM)));
        if (certificate.isPresent()) {
            String ns = certificate.get().substring(0, Math.max(0, certificate.get().indexOf('/')));
            String c = certificate.get().substring(certificate.get().indexOf('/') + 1);
            return "cert-manager issues this Secret and should have renewed it before (renewBefore): see why not with"
                    + " kubectl -n " + ns + " describe certificate " + c + " and cert-manager's logs, then renew it"
                    + " now: cmctl renew -n " + ns + " " + c;
        }
        String r = release.orElse("<release>");
        return "the chart made this self-signed certificate and keeps it across upgrades while the Secret exists, so"
                + " delete it and upgrade, which generates a new CA and certificate and writes the new caBundle: kubectl -n "
                + namespace + " delete secret " + name + " && helm upgrade " + r + " deploy/helm/kvcache-injector -n "
                + namespace + " --reuse-values (the webhook reloads the files once the kubelet updates them); or"
                + " install with tls.certManager.enabled=true, which renews by itself";
    }

    private static String days(Duration d) {
        long days = d.toDays();
        if (days >= 1) {
            return days + (days == 1 ? " day" : " days");
        }
        long hours = d.truncatedTo(ChronoUnit.HOURS).toHours();
        return hours + (hours == 1 ? " hour" : " hours");
    }
}
