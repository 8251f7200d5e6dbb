/**
 * Tests of the deployment artefacts under {@code deploy/}: the Helm chart rendered and linted by a real Helm
 * (helm-java), and the standalone CRDs against the wire model.
 */
package io.kvcacheinjector.adapters.k8s.chart;
