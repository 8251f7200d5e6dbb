package io.kvcacheinjector.adapters.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Reading a body whose Content-Length is known (issue 8) gives what reading it without the length gives. */
class ReadAtMostTest {
    private static final byte[] BODY = "{\"apiVersion\":\"admission.k8s.io/v1\"}".getBytes(StandardCharsets.UTF_8);

    private static WebhookServer.BodyRead read(byte[] stream, long max, OptionalLong declared) throws IOException {
        return WebhookServer.readAtMost(new ByteArrayInputStream(stream), max, 1000, declared);
    }

    @Test
    void aBodyOfTheDeclaredLengthIsReadWhole() throws IOException {
        WebhookServer.BodyRead r = read(BODY, 100, OptionalLong.of(BODY.length));
        assertThat(r).isInstanceOfSatisfying(WebhookServer.BodyRead.Complete.class,
                c -> assertThat(c.bytes()).isEqualTo(BODY));
    }

    @Test
    void aStreamLongerOrShorterThanDeclaredIsReadAsWithoutADeclaredLength() throws IOException {
        for (long declared : new long[] {0, 5, BODY.length - 1, BODY.length + 10}) {
            WebhookServer.BodyRead r = read(BODY, 100, OptionalLong.of(declared));
            assertThat(r).as("declared " + declared).isInstanceOfSatisfying(WebhookServer.BodyRead.Complete.class,
                    c -> assertThat(c.bytes()).isEqualTo(BODY));
        }
    }

    @Test
    void aStreamLongerThanTheLimitIsTooLargeWhateverWasDeclared() throws IOException {
        byte[] big = new byte[300];
        assertThat(read(big, 100, OptionalLong.of(50))).isEqualTo(new WebhookServer.BodyRead.TooLarge(true));
        assertThat(read(big, 100, OptionalLong.empty())).isEqualTo(new WebhookServer.BodyRead.TooLarge(true));
        assertThat(read(new byte[2000], 100, OptionalLong.of(100))).isEqualTo(new WebhookServer.BodyRead.TooLarge(false));
    }

    @Test
    void anEmptyBodyIsComplete() throws IOException {
        assertThat(read(new byte[0], 100, OptionalLong.of(0))).isInstanceOfSatisfying(
                WebhookServer.BodyRead.Complete.class, c -> assertThat(c.bytes()).isEmpty());
    }
}
