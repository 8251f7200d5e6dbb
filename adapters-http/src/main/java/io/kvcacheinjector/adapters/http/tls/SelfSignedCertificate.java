package io.kvcacheinjector.adapters.http.tls;

import java.math.BigInteger;
import java.net.InetAddress;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority and a serving certificate it signed, made at start-up when no certificate
 * files are given. Keys are ECDSA P-256. The CA certificate is what a client trusts ({@code --tls-ca-out}); the
 * server presents the leaf followed by the CA.
 *
 * @param serving the leaf's key and the chain {@code [leaf, ca]}
 * @param ca      the CA certificate, for the client's trust store or a webhook's {@code caBundle}
 */
public record SelfSignedCertificate(ServingCertificate serving, X509Certificate ca) {

    /** How long a generated certificate is valid. */
    public static final Duration VALIDITY = Duration.ofDays(365);

    /** A CA and a leaf for {@code localhost} and {@code 127.0.0.1} (and {@code ::1}), valid for {@link #VALIDITY}. */
    public static SelfSignedCertificate forLocalhost(Clock clock) {
        try {
            return generate(List.of("localhost"),
                    List.of(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("::1")), VALIDITY, clock);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("literal addresses always resolve", e);
        }
    }

    /** A CA and a leaf whose subject alternative names are {@code dnsNames} and {@code addresses}. */
    public static SelfSignedCertificate generate(List<String> dnsNames, List<InetAddress> addresses,
                                                 Duration validity, Clock clock) {
        if (dnsNames.isEmpty() && addresses.isEmpty()) {
            throw new IllegalArgumentException("a serving certificate needs at least one name or address");
        }
        try {
            SecureRandom random = new SecureRandom();
            Instant now = clock.instant();
            Date notBefore = Date.from(now.minus(Duration.ofMinutes(5)));
            Date notAfter = Date.from(now.plus(validity));
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();

            KeyPair caKeys = ecKeyPair(random);
            X500Name caName = new X500Name("CN=kvcache-injector self-signed CA");
            X509v3CertificateBuilder caBuilder = new JcaX509v3CertificateBuilder(caName, serial(random), notBefore,
                    notAfter, caName, caKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false,
                            ext.createSubjectKeyIdentifier(caKeys.getPublic()));
            X509Certificate ca = sign(caBuilder, caKeys);

            KeyPair leafKeys = ecKeyPair(random);
            List<GeneralName> names = new ArrayList<>();
            dnsNames.forEach(n -> names.add(new GeneralName(GeneralName.dNSName, n)));
            addresses.forEach(a -> names.add(new GeneralName(GeneralName.iPAddress, a.getHostAddress())));
            String cn = dnsNames.isEmpty() ? addresses.getFirst().getHostAddress() : dnsNames.getFirst();
            X509v3CertificateBuilder leafBuilder = new JcaX509v3CertificateBuilder(caName, serial(random), notBefore,
                    notAfter, new X500Name("CN=" + cn), leafKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                    .addExtension(Extension.subjectAlternativeName, false,
                            new GeneralNames(names.toArray(GeneralName[]::new)))
                    .addExtension(Extension.subjectKeyIdentifier, false,
                            ext.createSubjectKeyIdentifier(leafKeys.getPublic()))
                    .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca));
            X509Certificate leaf = sign(leafBuilder, caKeys);

            return new SelfSignedCertificate(new ServingCertificate(leafKeys.getPrivate(), List.of(leaf, ca)), ca);
        } catch (GeneralSecurityException | CertIOException | OperatorCreationException e) {
            throw new IllegalStateException("could not generate a self-signed certificate: " + e.getMessage(), e);
        }
    }

    /** The CA certificate as PEM, for {@code --tls-ca-out}. */
    public String caPem() {
        return Pem.write(List.of(ca));
    }

    private static KeyPair ecKeyPair(SecureRandom random) throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), random);
        return g.generateKeyPair();
    }

    private static BigInteger serial(SecureRandom random) {
        return new BigInteger(127, random).add(BigInteger.ONE);
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuer)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate())));
    }
}
