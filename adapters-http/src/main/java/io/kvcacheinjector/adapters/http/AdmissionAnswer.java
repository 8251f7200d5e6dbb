package io.kvcacheinjector.adapters.http;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * What to send back for one admission request: the HTTP status and the JSON body ({@code application/json}).
 * Status 200 carries an AdmissionReview response; 400 and 413 carry {@code {"error","message"}}.
 */
public record AdmissionAnswer(int status, byte[] body) {
    /** The content type of every body. */
    public static final String CONTENT_TYPE = "application/json";

    public AdmissionAnswer {
        Objects.requireNonNull(body, "body");
        body = body.clone();
    }

    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The body as UTF-8 text. */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AdmissionAnswer a && a.status == status && java.util.Arrays.equals(a.body, body);
    }

    @Override
    public int hashCode() {
        return 31 * status + java.util.Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "AdmissionAnswer[" + status + ", " + bodyText() + "]";
    }
}
