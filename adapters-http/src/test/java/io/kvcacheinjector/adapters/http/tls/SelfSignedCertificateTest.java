package io.kvcacheinjector.adapters.http.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SelfSignedCertificateTest {
    private final SelfSignedCertificate generated = SelfSignedCertificate.forLocalhost(Clock.systemUTC());

    @Test
    void theLeafNamesLocalhostAndTheLoopbackAddresses() throws Exception {
        X509Certificate leaf = generated.serving().leaf();
        assertThat(leaf.getSubjectAlternativeNames().stream().map(l -> String.valueOf(l.get(1))).toList())
                .containsExactlyInAnyOrder("localhost", "127.0.0.1", "0:0:0:0:0:0:0:1");
        assertThat(leaf.getBasicConstraints()).isEqualTo(-1);
        assertThat(leaf.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
    }

    @Test
    void theLeafChainsToTheCaThatIsWrittenOut() throws Exception {
        X509Certificate ca = Pem.certificates(generated.caPem()).getFirst();
        assertThat(ca.getBasicConstraints()).isGreaterThanOrEqualTo(0);
        PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
        params.setRevocationEnabled(false);
        CertPathValidator.getInstance("PKIX").validate(CertificateFactory.getInstance("X.509")
                .generateCertPath(List.of(generated.serving().leaf())), params);
        assertThat(generated.serving().chain()).containsExactly(generated.serving().leaf(), ca);
    }

    @Test
    void theKeyBelongsToTheLeaf() {
        assertThat(CertificateFiles.belongTogether(generated.serving().key(),
                generated.serving().leaf().getPublicKey())).isTrue();
    }
}
