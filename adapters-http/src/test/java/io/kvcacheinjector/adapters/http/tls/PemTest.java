package io.kvcacheinjector.adapters.http.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvcacheinjector.adapters.http.testing.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Reads keys and certificates exactly as OpenSSL writes them (fixtures in src/test/resources/pem). */
class PemTest {

    static String fixture(String name) {
        try (InputStream in = PemTest.class.getResourceAsStream("/pem/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "rsa-pkcs1.key, rsa.crt, RSA",
            "rsa-pkcs8.key, rsa.crt, RSA",
            "ec-sec1.key, ec.crt, EC",
            "ec-sec1-with-params.key, ec.crt, EC",
            "ec-pkcs8.key, ec.crt, EC",
            "ed25519-pkcs8.key, ed25519.crt, EdDSA",
    })
    void readsEveryUnencryptedKeyFormatOpenSslWrites(String keyFile, String certFile, String algorithm)
            throws Exception {
        PrivateKey key = Pem.privateKey(fixture(keyFile));
        X509Certificate cert = Pem.certificates(fixture(certFile)).getFirst();

        assertThat(key.getAlgorithm()).isEqualTo(algorithm);
        assertThat(CertificateFiles.belongTogether(key, cert.getPublicKey())).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"rsa-pkcs8-encrypted.key", "rsa-pkcs1-encrypted.key"})
    void refusesAnEncryptedKeyAndSaysToProvideItUnencrypted(String keyFile) {
        assertThatThrownBy(() -> Pem.privateKey(fixture(keyFile)))
                .isInstanceOf(Pem.PemException.class)
                .hasMessage("holds an encrypted private key; provide the key unencrypted");
    }

    @Test
    void writesPkcs8ThatReadsBack() throws Exception {
        KeyPair keys = TestPki.ec();
        String pem = Pem.write(keys.getPrivate());
        assertThat(pem).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(Pem.privateKey(pem).getEncoded()).isEqualTo(keys.getPrivate().getEncoded());
    }

    @Test
    void aKeyFileWithoutAKeySaysSo() {
        assertThatThrownBy(() -> Pem.privateKey(fixture("rsa.crt"))).hasMessageStartingWith("holds no PEM private key");
    }

    @Test
    void garbageIsNotACertificate() {
        assertThatThrownBy(() -> Pem.certificates("hello")).hasMessage("holds no PEM CERTIFICATE block");
        assertThatThrownBy(() -> Pem.certificates("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n"))
                .hasMessageStartingWith("is not readable PEM");
    }

    @Test
    void readsACertificateChainInOrderAndIgnoresOtherBlocks() throws Exception {
        X509Certificate ec = Pem.certificates(fixture("ec.crt")).getFirst();
        X509Certificate rsa = Pem.certificates(fixture("rsa.crt")).getFirst();
        List<X509Certificate> read = Pem.certificates(fixture("ec.crt") + fixture("ec-sec1.key") + fixture("rsa.crt"));
        assertThat(read).containsExactly(ec, rsa);
    }

    @Test
    void aKeyFromAnotherPairDoesNotBelongToTheCertificate() throws Exception {
        X509Certificate ec = Pem.certificates(fixture("ec.crt")).getFirst();
        X509Certificate rsa = Pem.certificates(fixture("rsa.crt")).getFirst();
        assertThat(CertificateFiles.belongTogether(TestPki.ec().getPrivate(), ec.getPublicKey())).isFalse();
        assertThat(CertificateFiles.belongTogether(Pem.privateKey(fixture("rsa-pkcs1.key")), ec.getPublicKey()))
                .isFalse();
        assertThat(CertificateFiles.belongTogether(Pem.privateKey(fixture("rsa-pkcs1.key")), rsa.getPublicKey()))
                .isTrue();
    }
}
