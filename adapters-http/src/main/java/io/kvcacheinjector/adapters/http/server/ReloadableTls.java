package io.kvcacheinjector.adapters.http.server;

import io.kvcacheinjector.adapters.http.tls.TlsMaterial;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The listener's {@link SSLContext}, made once, whose key manager (the serving certificate) and trust manager (the
 * client CAs) are swapped by {@link #reload} for the connections that come after. Handed to Helidon as a ready
 * context: Helidon's own set-up from a key and a chain builds a PKCS#12 key store in memory, encrypting the key with
 * PBKDF2 and decrypting it again, on the main thread before the server can listen — about half of its TLS start
 * (docs/explanation/performance-log.md, "Start-up against an API server"); Helidon cannot reload a context it was given,
 * so the reloading is done here. The key managers are the JDK's own, over an in-memory JKS store, whose key
 * protection costs no key derivation.
 */
final class ReloadableTls {
    private static final char[] PASSWORD = "in-memory".toCharArray();

    private volatile X509ExtendedKeyManager keys;
    private volatile X509ExtendedTrustManager trust;
    private final SSLContext context;

    ReloadableTls(TlsMaterial initial) {
        keys = keyManager(initial);
        trust = trustManager(initial);
        try {
            context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[]{new Keys()}, new TrustManager[]{new Trust()}, null);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    SSLContext sslContext() {
        return context;
    }

    /** New connections get {@code material}'s certificate and client CAs; open connections keep theirs. */
    void reload(TlsMaterial material) {
        X509ExtendedKeyManager k = keyManager(material);
        X509ExtendedTrustManager t = trustManager(material);
        keys = k;
        trust = t;
    }

    private static X509ExtendedKeyManager keyManager(TlsMaterial material) {
        try {
            KeyStore store = KeyStore.getInstance("JKS");
            store.load(null, null);
            store.setKeyEntry("serving", material.serving().key(), PASSWORD,
                    material.serving().chain().toArray(X509Certificate[]::new));
            KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            factory.init(store, PASSWORD);
            for (KeyManager m : factory.getKeyManagers()) {
                if (m instanceof X509ExtendedKeyManager x) {
                    return x;
                }
            }
            throw new IllegalStateException("the JDK offers no X.509 key manager");
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("cannot use the serving certificate and key: " + e.getMessage(), e);
        }
    }

    /** The client CAs; with none, a trust manager that trusts nothing (client certificates are then not asked for). */
    private static X509ExtendedTrustManager trustManager(TlsMaterial material) {
        try {
            KeyStore store = KeyStore.getInstance("JKS");
            store.load(null, null);
            int i = 0;
            for (X509Certificate ca : material.clientCas()) {
                store.setCertificateEntry("client-ca-" + i++, ca);
            }
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            for (TrustManager m : factory.getTrustManagers()) {
                if (m instanceof X509ExtendedTrustManager x) {
                    return x;
                }
            }
            throw new IllegalStateException("the JDK offers no X.509 trust manager");
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("cannot use the client CAs: " + e.getMessage(), e);
        }
    }

    /** The current key manager's answers. */
    private final class Keys extends X509ExtendedKeyManager {
        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return keys.getClientAliases(keyType, issuers);
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return keys.chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return keys.getServerAliases(keyType, issuers);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return keys.chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return keys.chooseEngineServerAlias(keyType, issuers, engine);
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return keys.chooseEngineClientAlias(keyType, issuers, engine);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return keys.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return keys.getPrivateKey(alias);
        }
    }

    /** The current trust manager's answers. */
    private final class Trust extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            trust.checkClientTrusted(chain, authType, socket);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            trust.checkServerTrusted(chain, authType, socket);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            trust.checkClientTrusted(chain, authType, engine);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            trust.checkServerTrusted(chain, authType, engine);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            trust.checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            trust.checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return trust.getAcceptedIssuers();
        }
    }
}
