package io.kvcacheinjector.domain.kvcache;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.text.MessageText;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.json.Json;
import org.junit.jupiter.api.Test;

/**
 * The kvcache messages show a value from the Pod the way every other message does ({@link MessageText#quote}): a
 * backspace, a form feed or a lone surrogate in a Binding name reads the same in a kvcache refusal as in a launch or
 * CacheBlend message, where the JSON writer ({@link Json#quote}) would spell them differently.
 */
class KvCacheMessagesTest {
    @Test
    void aBindingNameIsQuotedByTheOneRuleOfEveryMessage() {
        String name = "chat\b\f\ud800";
        Decision.Refuse r = KvCacheMessages.bindingNotFound(KvCacheMessages.bindingRef("team-a", name));

        assertThat(r.codes()).containsExactly(ReasonCode.BINDING_NOT_FOUND);
        assertThat(r.message()).startsWith("binding-not-found: KVCachePoolBinding \"team-a/chat\\u0008\\u000c")
                .contains(MessageText.quote("team-a/" + name))
                .doesNotContain(Json.quote("team-a/" + name))
                .endsWith("create the Binding, or correct the name.");
    }
}
