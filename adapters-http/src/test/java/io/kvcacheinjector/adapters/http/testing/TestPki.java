package io.kvcacheinjector.adapters.http.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Keys, certificates, PEM texts and SSL contexts for tests. */
public final class TestPki {
    private TestPki() {
    }

    public static KeyPair rsa() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public static KeyPair ec() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A certificate for {@code localhost}/{@code 127.0.0.1} with subject {@code CN=cn}, signed by itself. */
    public static X509Certificate selfSigned(KeyPair keys, String cn, Instant notBefore, Instant notAfter) {
        return issue(keys, cn, keys, cn, notBefore, notAfter, false);
    }

    /** A certificate valid from an hour ago for a day. */
    public static X509Certificate selfSigned(KeyPair keys, String cn) {
        Instant now = Instant.now();
        return selfSigned(keys, cn, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)));
    }

    /** A certificate for {@code subject} (key {@code keys}) signed by {@code issuer}. */
    public static X509Certificate issue(KeyPair keys, String cn, KeyPair issuer, String issuerCn, Instant notBefore,
                                        Instant notAfter, boolean ca) {
        try {
            JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(new X500Name("CN=" + issuerCn),
                    BigInteger.valueOf(System.nanoTime()), Date.from(notBefore), Date.from(notAfter),
                    new X500Name("CN=" + cn), keys.getPublic());
            b.addExtension(Extension.basicConstraints, true, ca ? new BasicConstraints(0) : new BasicConstraints(false));
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[]{
                    new GeneralName(GeneralName.dNSName, "localhost"),
                    new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
            String alg = issuer.getPrivate().getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
            return new JcaX509CertificateConverter().getCertificate(
                    b.build(new JcaContentSignerBuilder(alg).build(issuer.getPrivate())));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Objects (certificates, keys) as PEM blocks. */
    public static String pem(Object... objects) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            for (Object o : objects) {
                w.writeObject(o);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** A client SSL context that trusts {@code trusted} (and presents {@code clientKey}/{@code clientChain} if set). */
    public static SSLContext clientContext(List<X509Certificate> trusted, PrivateKey clientKey,
                                           List<X509Certificate> clientChain) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            for (int i = 0; i < trusted.size(); i++) {
                trust.setCertificateEntry("ca" + i, trusted.get(i));
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = null;
            if (clientKey != null) {
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry("client", clientKey, "pw".toCharArray(),
                        clientChain.toArray(X509Certificate[]::new));
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, "pw".toCharArray());
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            javax.net.ssl.KeyManager[] keyManagers = kmf == null ? null
                    : new javax.net.ssl.KeyManager[]{new AlwaysPresent(
                            (javax.net.ssl.X509ExtendedKeyManager) kmf.getKeyManagers()[0])};
            ctx.init(keyManagers, tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Presents the client certificate whatever CAs the server names as acceptable, so a test can show what the
     * server does with a certificate it does not trust (the JDK would otherwise stay silent).
     */
    private static final class AlwaysPresent extends javax.net.ssl.X509ExtendedKeyManager {
        private final javax.net.ssl.X509ExtendedKeyManager delegate;

        AlwaysPresent(javax.net.ssl.X509ExtendedKeyManager delegate) {
            this.delegate = delegate;
        }

        @Override
        public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
            return new String[]{"client"};
        }

        @Override
        public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers, java.net.Socket socket) {
            return "client";
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, java.security.Principal[] issuers,
                                              javax.net.ssl.SSLEngine engine) {
            return "client";
        }

        @Override
        public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, java.security.Principal[] issuers, java.net.Socket socket) {
            return null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return delegate.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return delegate.getPrivateKey(alias);
        }
    }

    public static SSLContext clientContext(List<X509Certificate> trusted) {
        return clientContext(trusted, null, List.of());
    }
}
