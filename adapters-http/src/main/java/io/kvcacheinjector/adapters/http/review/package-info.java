/**
 * The AdmissionReview {@code admission.k8s.io/v1} wire format: {@link
 * io.kvcacheinjector.adapters.http.review.AdmissionReviewReader} turns a request body into a {@link
 * io.kvcacheinjector.adapters.http.review.ReviewRequest} (or says why it is not one, an HTTP 400), and {@link
 * io.kvcacheinjector.adapters.http.review.AdmissionResponseWriter} turns a domain {@code Decision} into the
 * byte-stable response with its JSON Patch, warnings, status and audit annotations. Nothing here knows HTTP
 * servers or use cases.
 */
package io.kvcacheinjector.adapters.http.review;
