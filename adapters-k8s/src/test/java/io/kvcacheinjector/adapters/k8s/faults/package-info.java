/**
 * The informer cluster view under faults of its API server, with lookups running all the while: the server stopped
 * and restarted (every watch drops), lists and watches refused (RBAC revoked), a read that never answers. The view
 * must say it is not synced, answer every lookup {@code Failed} (never a stale {@code Found}, never a
 * {@code NotFound}) until it has caught up, bound every live read, and recover by itself. End to end through the real
 * {@code serve}: {@code app/src/test/java/io/kvcacheinjector/app/reliability/ApiServerOutageTest}.
 */
package io.kvcacheinjector.adapters.k8s.faults;
