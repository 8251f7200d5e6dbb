/**
 * The end-to-end suite (issue 7): a real {@code etcd} and {@code kube-apiserver} on loopback, the chart installed into
 * them by a real Helm with the webhooks registered at {@code https://127.0.0.1:<port>}, the built jar's {@code serve}
 * running against that API server with the chart's ServiceAccount, and a fabric8 client creating and editing Pods
 * through the API server. Classes named {@code *E2E} are left out of the normal build and run by the {@code e2e}
 * profile of {@code app/pom.xml} ({@code .ci/e2e}, {@code docs/how-to/run-e2e.md}).
 */
package io.kvcacheinjector.app.e2e;
