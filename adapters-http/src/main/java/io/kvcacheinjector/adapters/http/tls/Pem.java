package io.kvcacheinjector.adapters.http.tls;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.edec.EdECObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads and writes PEM: certificates ({@code CERTIFICATE}) and unencrypted private keys in PKCS#1
 * ({@code RSA PRIVATE KEY}), SEC 1 ({@code EC PRIVATE KEY}, with or without a preceding {@code EC PARAMETERS}) and
 * PKCS#8 ({@code PRIVATE KEY}: RSA, EC, Ed25519, Ed448). Keys are built with the JDK's own key factories, so
 * the TLS stack never needs the BouncyCastle provider.
 */
public final class Pem {
    private static final Map<ASN1ObjectIdentifier, String> KEY_ALGORITHMS = Map.of(
            PKCSObjectIdentifiers.rsaEncryption, "RSA",
            PKCSObjectIdentifiers.id_RSASSA_PSS, "RSASSA-PSS",
            X9ObjectIdentifiers.id_ecPublicKey, "EC",
            EdECObjectIdentifiers.id_Ed25519, "Ed25519",
            EdECObjectIdentifiers.id_Ed448, "Ed448");

    private Pem() {
    }

    /** Every certificate in {@code text}, in order; other PEM blocks are ignored. */
    public static List<X509Certificate> certificates(String text) throws PemException {
        List<X509Certificate> certs = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        try (PEMParser parser = new PEMParser(new StringReader(text))) {
            Object o;
            while ((o = parser.readObject()) != null) {
                if (o instanceof X509CertificateHolder holder) {
                    certs.add(converter.getCertificate(holder));
                }
            }
        } catch (IOException | CertificateException | RuntimeException e) {
            throw new PemException("is not readable PEM (" + clause(e) + ")");
        }
        if (certs.isEmpty()) {
            throw new PemException("holds no PEM CERTIFICATE block");
        }
        return List.copyOf(certs);
    }

    /** The first private key in {@code text}. */
    public static PrivateKey privateKey(String text) throws PemException {
        try (PEMParser parser = new PEMParser(new StringReader(text))) {
            Object o;
            while ((o = parser.readObject()) != null) {
                if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
                    throw new PemException("holds an encrypted private key; provide the key unencrypted");
                }
                if (o instanceof PEMKeyPair pair) {
                    return toJdkKey(pair.getPrivateKeyInfo());
                }
                if (o instanceof PrivateKeyInfo info) {
                    return toJdkKey(info);
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new PemException("is not readable PEM (" + clause(e) + ")");
        }
        throw new PemException("holds no PEM private key (RSA PRIVATE KEY, EC PRIVATE KEY or PRIVATE KEY block)");
    }

    /** {@code certs} as PEM text, one {@code CERTIFICATE} block each. */
    public static String write(List<X509Certificate> certs) {
        return writeObjects(List.copyOf(certs));
    }

    /** {@code key} as a PKCS#8 {@code PRIVATE KEY} block. */
    public static String write(PrivateKey key) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(new org.bouncycastle.util.io.pem.PemObject("PRIVATE KEY", key.getEncoded()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static String writeObjects(List<?> objects) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            for (Object o : objects) {
                writer.writeObject(o);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static PrivateKey toJdkKey(PrivateKeyInfo info) throws PemException, IOException {
        ASN1ObjectIdentifier oid = info.getPrivateKeyAlgorithm().getAlgorithm();
        String algorithm = KEY_ALGORITHMS.get(oid);
        if (algorithm == null) {
            throw new PemException("holds a private key of unsupported algorithm " + oid.getId());
        }
        try {
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(info.getEncoded()));
        } catch (GeneralSecurityException e) {
            throw new PemException("holds a " + algorithm + " private key the JDK cannot read (" + clause(e) + ")");
        }
    }

    private static String clause(Exception e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            return e.getClass().getSimpleName();
        }
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    /** A PEM text that is not what was expected; the message completes "file X ...". */
    public static final class PemException extends Exception {
        private static final long serialVersionUID = 1L;

        PemException(String message) {
            super(message);
        }
    }
}
