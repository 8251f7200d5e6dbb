/** Test helpers: AdmissionReview bodies, Pods, TLS clients. */
package io.kvcacheinjector.adapters.http.testing;
