package io.kvcacheinjector.domain.cacheblend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.flags.FlagHit;
import io.kvcacheinjector.domain.flags.FlagReadingKind;
import io.kvcacheinjector.domain.pod.Container;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What each skip says, as warning and as fail-closed refusal (docs/reference/refusal-codes.md, "cacheblend mutate"). */
class CacheBlendMessagesTest {
    private static final EngineReference SHARED = new EngineReference("ops/cb", "ops", "cb", true);
    private static final EngineReference BARE = new EngineReference("cb", "team-a", "cb", false);
    private static final Container VLLM = Fixtures.podWithArgs("[]").containers().get(0);

    private static void wellFormed(CacheBlendSkip s) {
        for (String text : List.of(s.warning(), s.message())) {
            assertThat(text).startsWith(s.code().id() + ": ").doesNotContain("\n");
        }
        assertThat(s.warning().length()).as("warning: %s", s.warning()).isLessThan(s.message().length());
    }

    @Test
    void engineRefInvalidNamesTheAnnotationAndTheValueAndHowToWriteIt() {
        CacheBlendSkip s = CacheBlendMessages.engineRefInvalid("team-a/chat-0", "is \"a/b/c\", which has more than one \"/\"");
        wellFormed(s);
        assertThat(s.message()).contains("lmcache.ai/cacheblend-engine").contains("\"a/b/c\"")
                .contains("Set it to the <namespace>/<name> of a CacheBlendEngine").contains("bare name");
    }

    @Test
    void engineRefForbiddenNamesBothNamespacesButNotWhetherTheEngineExists() {
        CacheBlendSkip s = CacheBlendMessages.engineRefForbidden("team-a/chat-0", "team-a", SHARED, Set.of("zeta", "alpha"));
        wellFormed(s);
        assertThat(s.message()).contains("\"ops/cb\"").contains("namespace \"team-a\"").contains("does not allow")
                .contains("(alpha, zeta)").contains("ask the cluster administrator to allow namespace \"ops\"")
                .doesNotContain("exist");
        assertThat(s.warning()).doesNotContain("exist");
    }

    @Test
    void engineNotFoundExplainsTheBareNameAndSuggestsTheNamespace() {
        CacheBlendSkip s = CacheBlendMessages.engineNotFound("team-a/chat-0", BARE);
        wellFormed(s);
        assertThat(s.message()).contains("CacheBlendEngine team-a/cb").contains("looked up in the Pod's namespace")
                .contains("<namespace>/cb").contains("or create the engine");
        assertThat(CacheBlendMessages.engineNotFound("p", SHARED).message()).doesNotContain("bare name");
    }

    @Test
    void theConnectionSkipsNameTheEngineTheConfigMapAndTheKey() {
        CacheBlendSkip missing = CacheBlendMessages.connectionMissing(SHARED);
        wellFormed(missing);
        assertThat(missing.message()).contains("CacheBlendEngine ops/cb").contains("ConfigMap ops/cb-connection")
                .contains("Wait for the engine to reconcile").contains("ConfigValid");
        CacheBlendSkip invalid = CacheBlendMessages.connectionInvalid(SHARED, "kv-transfer-config-decoder.json", "is absent");
        wellFormed(invalid);
        assertThat(invalid.message()).contains("key kv-transfer-config-decoder.json of ConfigMap ops/cb-connection is absent")
                .contains("Let the engine's operator rewrite the ConfigMap");
    }

    @Test
    void lookupFailedNamesWhatWasReadAndTheErrorClass() {
        CacheBlendSkip s = CacheBlendMessages.lookupFailed("CacheBlendEngine ops/cb", "forbidden by RBAC");
        wellFormed(s);
        assertThat(s.message()).contains("CacheBlendEngine ops/cb could not be read (forbidden by RBAC)")
                .contains("Check the webhook's RBAC").contains("recreated");
    }

    @Test
    void theContainerSkipsNameTheContainerAndTheFix() {
        CacheBlendSkip target = CacheBlendMessages.targetContainerNotFound("team-a/chat-0",
                new TargetContainer.NotFound("container \"engine\", named by annotation lmcache.ai/cacheblend-container,"
                        + " does not exist; the Pod's containers are \"vllm\"", "container \"engine\" does not exist"));
        wellFormed(target);
        assertThat(target.message()).contains("\"engine\"").contains("Name an existing container");

        CacheBlendSkip launch = CacheBlendMessages.launchUnproven(VLLM, "sh", "launch-shell-c: the shell \"sh\" runs \"-c\"");
        wellFormed(launch);
        assertThat(launch.message()).contains("container \"vllm\"").contains("\"sh\"").contains("launch-shell-c")
                .contains("Start vllm directly in command").contains("ENTRYPOINT");

        FlagHit hit = new FlagHit(3, false, "--kv_transfer_config", "--kv-transfer-config", FlagReadingKind.NORMALISED,
                List.of());
        CacheBlendSkip kv = CacheBlendMessages.kvTransferConfigPresent(VLLM, hit);
        wellFormed(kv);
        assertThat(kv.message()).contains("\"--kv_transfer_config\" in args, which vLLM reads as --kv-transfer-config")
                .contains("Remove the flag").contains("drop the lmcache.ai/cacheblend-inject label");
        assertThat(kv.warning()).contains("\"--kv_transfer_config\"");
    }

    @Test
    void payloadAndPdRoleNameTheFieldAndTheValue() {
        CacheBlendSkip payload = CacheBlendMessages.payloadImageUnset(SHARED);
        wellFormed(payload);
        assertThat(payload.message()).contains("CacheBlendEngine ops/cb").contains("spec.injection.payloadImage.repository")
                .contains("cacheBlend.spec.injection.payloadImage");
        CacheBlendSkip pd = CacheBlendMessages.pdRoleInvalid("team-a/chat-0", "prefill");
        wellFormed(pd);
        assertThat(pd.message()).contains("lmcache.ai/pd-role").contains("\"prefill\"")
                .contains("Set \"prefiller\" or \"decoder\", or remove the annotation");
    }

    @Test
    void valuesFromThePodAreQuotedWithControlCharactersEscaped() {
        CacheBlendSkip s = CacheBlendMessages.pdRoleInvalid("p", "decoder\n");
        assertThat(s.message()).contains("\"decoder\\n\"").doesNotContain("\n");
    }

    @Test
    void aSkipNeedsASkipCode() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new CacheBlendSkip(ReasonCode.KEY_OWNED, "key-owned: a",
                "key-owned: b")).isInstanceOf(IllegalArgumentException.class);
    }
}
