/**
 * TLS material for the webhook listener: PEM reading and writing ({@link
 * io.kvcacheinjector.adapters.http.tls.Pem}), the certificate files and their checks ({@link
 * io.kvcacheinjector.adapters.http.tls.CertificateFiles}), the start-up self-signed CA and certificate ({@link
 * io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate}), and the poller that applies rotated files without
 * a restart ({@link io.kvcacheinjector.adapters.http.tls.TlsFileWatcher}). Nothing here knows Helidon.
 */
package io.kvcacheinjector.adapters.http.tls;
