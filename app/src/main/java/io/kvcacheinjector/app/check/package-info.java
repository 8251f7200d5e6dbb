/**
 * {@code kvcache-injector check} ({@link io.kvcacheinjector.app.check.CheckCommand}): a read-only look at a live cluster with the user's own credentials, like
 * {@code istioctl analyze}. It finds the install (its webhook configurations, their {@code caBundle} and readiness,
 * the CRDs it reads), decides every opted-in workload template and bare Pod now with the same use cases the webhook
 * runs, and reports each problem as a {@link io.kvcacheinjector.app.check.Finding} with a stable
 * {@link io.kvcacheinjector.app.check.FindingCode} (docs/reference/check.md).
 */
package io.kvcacheinjector.app.check;
