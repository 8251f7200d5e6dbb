/**
 * Reliability through the real wiring: the {@code serve} command run as a child JVM ({@link
 * io.kvcacheinjector.app.reliability.ServeProcess}) with the real engines, adapters and Guice module, driven over
 * HTTPS. Generated hostile reviews ({@code GeneratedHostileReviewsTest}; the profile {@code hostile-long} runs at
 * least 100 000), faults of the API server and of the certificate files ({@code ApiServerOutageTest},
 * {@code CertificateGarbageTest}), and a soak with rotations and cluster changes ({@code ServeSoak}, profile
 * {@code soak}). Results and limits: {@code docs/explanation/reliability.md}.
 */
package io.kvcacheinjector.app.reliability;
