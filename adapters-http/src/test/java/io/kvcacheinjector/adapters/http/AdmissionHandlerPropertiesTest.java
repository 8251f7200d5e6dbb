package io.kvcacheinjector.adapters.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.adapters.http.testing.FakeUseCases;
import io.kvcacheinjector.adapters.http.testing.Reviews;
import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.domain.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Whatever arrives, the handler answers 200 or 400 with JSON, and a 200 echoes the uid. */
class AdmissionHandlerPropertiesTest {
    private final FakeUseCases fakes = new FakeUseCases();
    private final AdmissionHandler handler = AdmissionHandler.quiet(fakes.useCases());

    @Property(tries = 500)
    void arbitraryBytesGetA400OrAReviewNeverAnException(@ForAll byte[] body, @ForAll Webhook webhook) {
        AdmissionAnswer answer = handler.handle(webhook, body);
        assertThat(answer.status()).isIn(200, 400);
        assertThat(Json.parse(answer.bodyText())).isPresent();
    }

    @Property(tries = 300)
    void arbitraryTextGetsA400OrAReview(@ForAll String text, @ForAll Webhook webhook) {
        AdmissionAnswer answer = handler.handle(webhook, text.getBytes(StandardCharsets.UTF_8));
        assertThat(answer.status()).isIn(200, 400);
        assertThat(Json.parse(answer.bodyText())).isPresent();
    }

    @Property(tries = 300)
    void anyObjectUnderReviewGetsAnAnswerThatEchoesTheUid(@ForAll("uids") String uid, @ForAll("trees") Object object,
                                                          @ForAll Webhook webhook) {
        Map<String, Object> review = webhook == Webhook.KVCACHE_VALIDATE
                ? Reviews.update(uid, object, object) : Reviews.create(uid, object);
        AdmissionAnswer answer = handler.handle(webhook, Reviews.bytes(review));
        assertThat(answer.status()).isEqualTo(200);
        assertThat(Reviews.response(answer.body())).containsEntry("uid", uid);
    }

    @Provide
    Arbitrary<String> uids() {
        return Arbitraries.strings().ofMinLength(1).ofMaxLength(40).filter(s -> !s.isBlank());
    }

    @Provide
    Arbitrary<Object> trees() {
        Arbitrary<Object> leaves = Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(8).map(s -> (Object) s),
                Arbitraries.longs().map(l -> (Object) l), Arbitraries.of(true, false).map(b -> (Object) b));
        return Arbitraries.recursive(() -> leaves, inner -> Arbitraries.oneOf(
                inner.list().ofMaxSize(3).map(l -> (Object) List.copyOf(l)),
                Arbitraries.maps(Arbitraries.strings().alpha().ofMaxLength(6), inner).ofMaxSize(3)
                        .map(m -> (Object) m)), 4);
    }
}
