/**
 * {@code kvcache-injector inject} and {@code review}: what the webhook would do to one workload or one
 * AdmissionReview, answered without a server, against a file-backed cluster ({@code --cluster DIR}) or, without it,
 * the live cluster of the kubeconfig, read-only ({@link io.kvcacheinjector.app.offline.OfflineCluster}). {@code bench}
 * reuses the file-backed cluster.
 */
package io.kvcacheinjector.app.offline;
