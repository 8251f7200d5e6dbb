package io.kvcacheinjector.adapters.http.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.server.ServerTls;
import io.kvcacheinjector.adapters.http.telemetry.AdmissionOutcome;
import io.kvcacheinjector.adapters.http.testing.RawHttps;
import io.kvcacheinjector.adapters.http.testing.Reviews;
import io.kvcacheinjector.adapters.http.testing.TestPki;
import io.kvcacheinjector.adapters.http.testing.TestServer;
import io.kvcacheinjector.adapters.http.tls.SelfSignedCertificate;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.Webhook;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A catalogue of hostile AdmissionReview bodies, each sent over real TLS to the real server and handler, each with
 * its exact answer: a 400 naming what is wrong (and the use case never called), a 413, or a reviewed answer whose
 * {@code uid} is echoed exactly. After every case the same connection still answers {@code /healthz}, so no case
 * leaves the server or the connection broken.
 */
class HostileBodiesTest {
    private static final SelfSignedCertificate CERT = SelfSignedCertificate.forLocalhost(Clock.systemUTC());
    private static final long LIMIT = 256 * 1024;
    private static final String UID = "uid-hostile";
    private static TestServer server;
    private static SSLContext client;

    /** What a case must get back. */
    sealed interface Expect {
        /** 400 {@code bad-request} whose message contains {@code fragment}; no use case is called. */
        record BadRequest(String fragment) implements Expect {
        }

        /** 413 {@code payload-too-large}; no use case is called. */
        record TooLarge() implements Expect {
        }

        /** 200, the use case behind the path called once, and the response's uid exactly {@code uid}. */
        record Reviewed(String uid) implements Expect {
        }

        /** 200 admitted unchanged without asking a use case (another kind, operation or subresource). */
        record NotJudged(String uid) implements Expect {
        }
    }

    record Hostile(String name, String path, byte[] body, Expect expect) {
        @Override
        public String toString() {
            return name;
        }
    }

    @BeforeAll
    static void start() {
        server = new TestServer(new ServerTls.Generated(CERT, Optional.empty()),
                TestServer.settings().withMaxBodyBytes(LIMIT));
        client = TestPki.clientContext(List.of(CERT.ca()));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void reset() {
        server.fakes.calls.clear();
        server.fakes.kvCacheMutate = pod -> Decision.Admit.unchanged();
        server.fakes.kvCacheFreeze = pod -> Decision.Admit.unchanged();
        server.fakes.cacheBlendMutate = pod -> Decision.Admit.unchanged();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void eachHostileBodyGetsItsExactAnswerAndTheServerStaysUp(Hostile c) throws Exception {
        Webhook webhook = Webhook.values()[0];
        for (Webhook w : Webhook.values()) {
            if (c.path().equals("/" + w.path())) {
                webhook = w;
            }
        }
        long errorsBefore = server.metrics.count(webhook, AdmissionOutcome.ERROR, "");
        try (RawHttps connection = new RawHttps(client, server.port())) {
            RawHttps.Response r = connection.post(c.path(), c.body());

            assertThat(r.status()).as("HTTP status").isNotEqualTo(500);
            assertThat(r.header("content-type")).isEqualTo("application/json");
            switch (c.expect()) {
                case Expect.BadRequest bad -> {
                    assertThat(r.status()).as("status of %s", r.text()).isEqualTo(400);
                    Map<String, Object> error = Reviews.parse(r.body());
                    assertThat(error).containsEntry("error", "bad-request");
                    assertThat((String) error.get("message")).contains(bad.fragment());
                    assertThat(server.fakes.calls).as("use case calls").isEmpty();
                    assertThat(server.metrics.count(webhook, AdmissionOutcome.ERROR, "")).isEqualTo(errorsBefore + 1);
                }
                case Expect.TooLarge tooLarge -> {
                    assertThat(r.status()).isEqualTo(413);
                    assertThat(Reviews.parse(r.body())).containsEntry("error", "payload-too-large");
                    assertThat(server.fakes.calls).isEmpty();
                }
                case Expect.Reviewed reviewed -> {
                    assertThat(r.status()).as("status of %s", r.text()).isEqualTo(200);
                    Map<String, Object> response = Reviews.response(r.body());
                    assertThat(response.get("uid")).as("the uid, echoed exactly").isEqualTo(reviewed.uid());
                    assertThat(response).containsEntry("allowed", true);
                    assertThat(server.fakes.calls).hasSize(1);
                }
                case Expect.NotJudged notJudged -> {
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(Reviews.response(r.body())).isEqualTo(Map.of("uid", notJudged.uid(), "allowed", true));
                    assertThat(server.fakes.calls).isEmpty();
                }
            }
            assertThat(connection.get("/healthz").status()).as("the same connection afterwards").isEqualTo(200);
        }
    }

    @Test
    void everyPrefixOfAReviewIsA400AndNoneReachesAUseCase() throws Exception {
        byte[] whole = utf8(review());
        try (RawHttps connection = new RawHttps(client, server.port())) {
            for (int length = 0; length < whole.length; length++) {
                RawHttps.Response r = connection.post("/kvcache/mutate", java.util.Arrays.copyOf(whole, length));
                assertThat(r.status()).as("the first %d of %d bytes", length, whole.length).isEqualTo(400);
                assertThat(Reviews.parse(r.body())).containsEntry("error", "bad-request");
            }
            assertThat(connection.post("/kvcache/mutate", whole).status()).isEqualTo(200);
        }
        assertThat(server.fakes.calls).as("only the whole review reached the use case").hasSize(1);
    }

    static Stream<Hostile> cases() {
        List<Hostile> cases = new ArrayList<>();
        String review = review();

        // not one JSON object
        cases.add(bad("empty body", "", "the body is empty"));
        cases.add(bad("whitespace only", " \r\n\t ", "the body is empty"));
        cases.add(bad("JSON null", "null", "the body is null, not an AdmissionReview object"));
        cases.add(bad("an array", "[" + review + "]", "the body is an array, not an AdmissionReview object"));
        cases.add(bad("a string", "\"AdmissionReview\"", "the body is a string"));
        cases.add(bad("a number", "1e400", "the body is a number"));
        cases.add(bad("one brace", "{", "the body is not valid JSON"));
        cases.add(bad("truncated in the middle", review.substring(0, review.length() / 2), "not valid JSON"));
        cases.add(bad("missing the last brace", review.substring(0, review.length() - 1), "not valid JSON"));
        cases.add(bad("a second object after the review", review + "{}", "not valid JSON"));
        cases.add(bad("garbage after the review", review + "xyz", "not valid JSON"));
        cases.add(bad("two reviews back to back", review + review, "not valid JSON"));
        cases.add(bad("a comment", "/* hi */" + review, "not valid JSON"));
        cases.add(bad("single quotes", review.replace("\"apiVersion\"", "'apiVersion'"), "not valid JSON"));
        cases.add(bad("NaN", insertIntoSpec(review, "\"x\":NaN"), "not valid JSON"));
        cases.add(bad("a raw control character in a string",
                review.replace("chat-0", "chat\u0001-0"), "Illegal unquoted character"));
        cases.add(bad("a raw newline in a string", review.replace("chat-0", "chat\n-0"),
                "Illegal unquoted character"));
        cases.add(bad("a NUL byte between tokens", review.replace(",\"kind\":\"AdmissionReview\"",
                ",\u0000\"kind\":\"AdmissionReview\""), "not valid JSON"));
        cases.add(bad("a number of 2000 digits", insertIntoSpec(review, "\"x\":" + "9".repeat(2000)),
                "exceeds another parser limit"));

        // nesting
        // the review, request, object and spec are four levels: 252 arrays inside the spec make 256, 253 make 257
        cases.add(bad("257 levels: 253 nested arrays inside the Pod", insertIntoSpec(review, "\"x\":" + nested(253)),
                "nests JSON deeper than 256"));
        cases.add(reviewed("256 levels: 252 nested arrays inside the Pod", insertIntoSpec(review, "\"x\":" + nested(252)),
                UID));
        cases.add(bad("100 000 open brackets", "[".repeat(100_000), "nests JSON deeper than 256"));
        cases.add(bad("40 000 nested objects", "{\"a\":".repeat(40_000), "nests JSON deeper than 256"));

        // not UTF-8
        cases.add(bad("an 0xFF byte in a label value", bytes(review, "chat-0", new byte[]{'c', (byte) 0xFF, 'x'}),
                "Invalid UTF-8"));
        cases.add(bad("a cut multi-byte sequence", bytes(review, "chat-0", new byte[]{'c', (byte) 0xE2, (byte) 0x82}),
                "Invalid UTF-8"));
        cases.add(bad("a lone continuation byte", bytes(review, "chat-0", new byte[]{(byte) 0x80, 'x'}),
                "Invalid UTF-8"));
        cases.add(bad("Latin-1 text", review.replace("chat-0", "caf\u00e9").getBytes(StandardCharsets.ISO_8859_1),
                "Invalid UTF-8"));
        cases.add(new Hostile("UTF-8 with a byte order mark", "/kvcache/mutate",
                concat(new byte[]{(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, review.getBytes(StandardCharsets.UTF_8)),
                new Expect.Reviewed(UID)));

        cases.add(bad("a UTF-16 surrogate encoded as three bytes (CESU-8)",
                bytes(review, "chat-0", new byte[]{'c', (byte) 0xED, (byte) 0xA0, (byte) 0x80}), "Invalid UTF-8"));
        // Jackson decodes these leniently rather than refusing them; pinned here and documented as a limit in
        // docs/explanation/reliability.md: the API server always re-encodes objects as valid UTF-8, so only a client
        // that is not the API server can send them, and its answer has no effect on the cluster
        cases.add(reviewed("an overlong two-byte NUL (C0 80)",
                bytes(review, "chat-0", new byte[]{'c', (byte) 0xC0, (byte) 0x80}), UID));
        cases.add(reviewed("a four-byte sequence beyond U+10FFFF",
                bytes(review, "chat-0", new byte[]{'c', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}), UID));
        cases.add(reviewed("the review in UTF-16LE without a byte order mark", review.getBytes(StandardCharsets.UTF_16LE),
                UID));
        cases.add(reviewed("the review in UTF-16 with a byte order mark", review.getBytes(StandardCharsets.UTF_16), UID));

        // duplicate keys, at any depth
        cases.add(bad("request twice", review.replaceFirst("\"request\":\\{",
                "\"request\":{\"uid\":\"other\"},\"request\":{"), "Duplicate field 'request'"));
        cases.add(bad("uid twice", review.replaceFirst("\"uid\":\"" + UID + "\"",
                "\"uid\":\"" + UID + "\",\"uid\":\"second\""), "Duplicate field 'uid'"));
        cases.add(bad("the opt-in label twice, false then true", review.replace(
                "\"kvcache.gpustack.ai/inject\":\"true\"",
                "\"kvcache.gpustack.ai/inject\":\"false\",\"kvcache.gpustack.ai/inject\":\"true\""),
                "Duplicate field 'kvcache.gpustack.ai/inject'"));
        cases.add(bad("a duplicate key deep in a field the webhook does not read",
                insertIntoSpec(review, "\"x\":[[{\"a\":1,\"a\":2}]]"), "Duplicate field 'a'"));

        // envelope fields of the wrong type or null
        cases.add(bad("apiVersion a number", review.replace("\"admission.k8s.io/v1\"", "1"), "apiVersion is \"1\""));
        cases.add(bad("apiVersion null", review.replace("\"admission.k8s.io/v1\"", "null"), "apiVersion is missing"));
        cases.add(bad("kind an array", review.replace("\"kind\":\"AdmissionReview\"", "\"kind\":[]"), "kind is"));
        cases.add(bad("request a string", envelope("\"request\""), "request is a string, not an object"));
        cases.add(bad("request null", envelope("null"), "request is missing"));
        cases.add(bad("request an array", envelope("[]"), "request is an array, not an object"));
        cases.add(bad("uid a number", review.replace("\"" + UID + "\"", "42"),
                "request.uid must be a non-empty string, not a number"));
        cases.add(bad("uid null", review.replace("\"" + UID + "\"", "null"), "request.uid is missing"));
        cases.add(bad("uid empty", review.replace("\"" + UID + "\"", "\"\""), "request.uid must be a non-empty string"));
        cases.add(bad("uid blank", review.replace("\"" + UID + "\"", "\" \\t \""), "request.uid must be a non-empty string"));
        cases.add(bad("request.kind a string", withRequest("kind", "Pod"), "request.kind is a string, not an object"));
        cases.add(bad("request.kind.kind a number", withRequest("kind", Map.of("group", "", "version", "v1", "kind", 7L)),
                "request.kind.kind is a number, not a string"));
        cases.add(bad("operation a number", review.replace("\"CREATE\"", "1"), "request.operation is a number"));
        cases.add(bad("namespace an object", review.replaceFirst("\"namespace\":\"team-a\",\"operation\"",
                "\"namespace\":{},\"operation\""), "request.namespace is an object"));
        cases.add(bad("dryRun a string", review.replace("\"dryRun\":false", "\"dryRun\":\"true\""),
                "request.dryRun is a string, not a boolean"));
        cases.add(bad("object null", review.replaceFirst("\"object\":\\{.*},\"dryRun\"", "\"object\":null,\"dryRun\""),
                "request.object is missing"));
        cases.add(bad("no oldObject on an UPDATE review to the freeze", "/kvcache/validate",
                review.replace("\"CREATE\"", "\"UPDATE\""), "request.oldObject is missing"));
        cases.add(bad("every field of the request null", envelope("{\"uid\":\"" + UID + "\",\"kind\":null,"
                + "\"namespace\":null,\"name\":null,\"operation\":null,\"subResource\":null,\"dryRun\":null,"
                + "\"object\":null,\"oldObject\":null}"), "request.object is missing"));

        // the object itself of the wrong shape: the review is readable, the use case answers (fakes: admit)
        for (String object : List.of("\"a string\"", "42", "[]", "true", "{}", "{\"metadata\":null,\"spec\":null}")) {
            cases.add(reviewed("object " + object, review.replaceFirst("\"object\":\\{.*},\"dryRun\"",
                    "\"object\":" + object + ",\"dryRun\""), UID));
        }

        // reviews this webhook does not judge are admitted unchanged without a use case
        cases.add(new Hostile("a subresource", "/kvcache/mutate", utf8(review.replace("\"operation\":\"CREATE\"",
                "\"operation\":\"CREATE\",\"subResource\":\"status\"")), new Expect.NotJudged(UID)));
        cases.add(new Hostile("a DELETE", "/kvcache/mutate", utf8(review.replace("\"CREATE\"", "\"DELETE\"")),
                new Expect.NotJudged(UID)));

        // names and values: unicode, control characters (escaped), bidi overrides, line separators
        String odd = "\\u0000\\u001f\\u007f\\u202e\\u2028\\u2029\\ud83d\\ude00\\ufeff\\u0301";
        cases.add(reviewed("control and bidi characters in the uid", review.replace(UID, "u-" + odd),
                "u-\u0000\u001f\u007f\u202e\u2028\u2029\ud83d\ude00\ufeff\u0301"));
        cases.add(reviewed("control characters in names, labels and annotations", review
                .replace("\"chat-0\"", "\"chat-" + odd + "\"")
                .replace("\"server\"", "\"srv" + odd + "\"")
                .replace("\"team-a\",\"labels\"", "\"team-" + odd + "\",\"labels\""), UID));
        cases.add(reviewed("unpaired surrogates in the uid", review.replace(UID, "u-\\ud800-\\udc00-x\\ud83d"),
                "u-\ud800-\udc00-x\ud83d"));
        cases.add(reviewed("a 100 000-character uid", review.replace(UID, "u".repeat(100_000)), "u".repeat(100_000)));

        // size
        cases.add(new Hostile("one byte over the limit", "/kvcache/mutate",
                utf8(padTo(review, (int) LIMIT + 1)), new Expect.TooLarge()));
        cases.add(reviewed("exactly at the limit", padTo(review, (int) LIMIT), UID));
        cases.add(reviewed("5 000 labels", review.replace("\"labels\":{",
                "\"labels\":{" + manyEntries(5_000) + ","), UID));
        cases.add(reviewed("20 000 arguments", review.replace("\"command\":[", "\"command\":[" + manyStrings(20_000)
                + ","), UID));
        return cases.stream();
    }

    private static String review() {
        return new String(Reviews.bytes(Reviews.create(UID, Reviews.optedInPod())), StandardCharsets.UTF_8);
    }

    private static String withRequest(String key, Object value) {
        return new String(Reviews.bytes(Reviews.with(Reviews.create(UID, Reviews.optedInPod()), key, value)),
                StandardCharsets.UTF_8);
    }

    private static String envelope(String request) {
        return "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":" + request + "}";
    }

    private static String insertIntoSpec(String review, String member) {
        return review.replace("\"spec\":{", "\"spec\":{" + member + ",");
    }

    /** {@code depth} nested arrays around a 0. */
    private static String nested(int depth) {
        return "[".repeat(depth) + "0" + "]".repeat(depth);
    }

    private static String padTo(String review, int size) {
        String marker = "\"spec\":{\"pad\":\"\",";
        String base = review.replace("\"spec\":{", marker);
        int missing = size - utf8(base).length;
        return base.replace("\"pad\":\"\"", "\"pad\":\"" + "p".repeat(missing) + "\"");
    }

    private static String manyEntries(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("\"example.com/k").append(i).append("\":\"v").append(i).append('"');
        }
        return b.toString();
    }

    private static String manyStrings(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("\"--a").append(i).append('"');
        }
        return b.toString();
    }

    /** The review with the first occurrence of {@code target} replaced by raw bytes. */
    private static byte[] bytes(String review, String target, byte[] replacement) {
        int at = review.indexOf(target);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(utf8(review.substring(0, at)));
        out.writeBytes(replacement);
        out.writeBytes(utf8(review.substring(at + target.length())));
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Hostile bad(String name, String body, String fragment) {
        return bad(name, "/kvcache/mutate", body, fragment);
    }

    private static Hostile bad(String name, String path, String body, String fragment) {
        return new Hostile(name, path, utf8(body), new Expect.BadRequest(fragment));
    }

    private static Hostile bad(String name, byte[] body, String fragment) {
        return new Hostile(name, "/kvcache/mutate", body, new Expect.BadRequest(fragment));
    }

    private static Hostile reviewed(String name, byte[] body, String uid) {
        return new Hostile(name, "/kvcache/mutate", body, new Expect.Reviewed(uid));
    }

    private static Hostile reviewed(String name, String body, String uid) {
        return new Hostile(name, "/kvcache/mutate", utf8(body), new Expect.Reviewed(uid));
    }
}
