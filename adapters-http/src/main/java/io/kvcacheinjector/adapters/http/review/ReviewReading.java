package io.kvcacheinjector.adapters.http.review;

import java.util.Objects;

/** The result of reading one request body: a usable review, or why it is not one (an HTTP 400). */
public sealed interface ReviewReading permits ReviewReading.Readable, ReviewReading.Unreadable {

    /** The body is an {@code admission.k8s.io/v1} AdmissionReview with a request and a uid. */
    record Readable(ReviewRequest request) implements ReviewReading {
        public Readable {
            Objects.requireNonNull(request, "request");
        }
    }

    /**
     * The body is not a usable AdmissionReview. {@code message} names what is wrong, for the person reading
     * the API server's error; {@code uid} is the request's uid when it could be read, otherwise empty.
     */
    record Unreadable(String message, String uid) implements ReviewReading {
        public Unreadable {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(uid, "uid");
        }
    }
}
