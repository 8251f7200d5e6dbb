package io.kvcacheinjector.domain.launch;

import io.kvcacheinjector.domain.text.MessageText;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.launch.LaunchResult.Refused;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the launch refusal messages say to the Pod author, beyond what every row of the analysis table checks. */
class LaunchMessagesTest {

    private static final String ASCEND = "engine vLLM with manufacturer ascend";

    private static Refused refusal(List<String> command, List<String> args, EntryPoint declared) {
        LaunchResult result = LaunchAnalysis.analyse(TestEntryPoints.input(Optional.of(command),
                args.isEmpty() ? Optional.empty() : Optional.of(args), false, declared));
        assertThat(result).isInstanceOf(Refused.class);
        return (Refused) result;
    }

    @Test
    void aMismatchNamesTheResolvedEngineAndTheRuntimeWithItsAnnotations() {
        Refused r = refusal(List.of("python3", "-m", "sglang.launch_server"), List.of("--model-path", "m"),
                TestEntryPoints.VLLM);

        String message = TestEntryPoints.kvcache(r, "server", "vllm-ascend", ASCEND);

        assertThat(message).startsWith("launch-engine-mismatch: container \"server\" launches \"python3\"")
                .contains("the SGLang entry point")
                .contains("runtime vllm-ascend (engine vLLM with manufacturer ascend)")
                .endsWith("Correct the kvcache.gpustack.ai/engine or kvcache.gpustack.ai/manufacturer annotation,"
                        + " or launch the declared engine (for example vllm serve).");
    }

    @Test
    void aMismatchOnSglangOffersTheSglangLaunch() {
        Refused r = refusal(List.of("/usr/bin/vllm", "serve"), List.of(), TestEntryPoints.SGLANG);

        String message = TestEntryPoints.kvcache(r, "engine", "sglang", "engine SGLang");

        assertThat(message).contains("container \"engine\" launches \"vllm\", the vLLM entry point")
                .contains("runtime sglang (engine SGLang)")
                .endsWith("(for example python3 -m sglang.launch_server).");
    }

    @Test
    void aShellDashCSaysTheAppendedTokensBecomeDollarZeroAndForwardingCannotHelp() {
        Refused r = refusal(List.of("/bin/bash", "-euc"), List.of("exec vllm serve"), TestEntryPoints.VLLM);

        String message = TestEntryPoints.kvcache(r, "server", "vllm", "engine vLLM");

        assertThat(message).contains("runs the shell \"bash\" with \"-euc\"")
                .contains("$0, $1")
                .contains("declaring forwarding cannot change that")
                .doesNotContain("launch-args-forwarded");
    }

    @Test
    void controlCharactersInTokensAreEscapedSoStrayWhitespaceIsVisible() {
        Refused r = refusal(List.of("vllm\n", "serve"), List.of(), TestEntryPoints.VLLM);

        String message = TestEntryPoints.kvcache(r, "ser\tver", "vllm", "engine vLLM");

        assertThat(r.code()).isEqualTo(ReasonCode.LAUNCH_UNRECOGNISED);
        assertThat(message).contains("container \"ser\\tver\" runs \"vllm\\n\"")
                .doesNotContain("\n").doesNotContain("\t");
    }

    @Test
    void quotesAndBackslashesAndInvisibleControlsAreEscaped() {
        assertThat(MessageText.quote("a\"b\\c\u0000\u007f\u2028")).isEqualTo("\"a\\\"b\\\\c\\u0000\\u007f\\u2028\"");
    }

    @Test
    void aHiddenCommandLineNamesTheLauncherAndTheOptionAsWritten() {
        Refused r = refusal(List.of("/usr/bin/env", "--split-string=vllm serve"), List.of(), TestEntryPoints.VLLM);

        String message = TestEntryPoints.kvcache(r, "server", "vllm", "engine vLLM");

        assertThat(message).contains("runs the launcher \"/usr/bin/env\" with \"--split-string=vllm serve\"")
                .contains("or declare kvcache.gpustack.ai/launch-args-forwarded: \"true\" only if");
    }

    @Test
    void aLauncherLeftWithoutAnOperandSaysWhichOptionExpectedIt() {
        Refused r = refusal(List.of("timeout", "-k", "5", "-s"), List.of(), TestEntryPoints.VLLM);

        String message = TestEntryPoints.kvcache(r, "server", "vllm", "engine vLLM");

        assertThat(message).startsWith("launch-no-program: container \"server\" runs the launcher \"timeout\"")
                .contains("ends with \"-s\", which expects an operand")
                .contains("would be executed as the program");
    }

    @Test
    void neitherCommandNorArgsExplainsTheDroppedCmdAndNeverOffersForwarding() {
        LaunchResult result = LaunchAnalysis.analyse(
                TestEntryPoints.input(Optional.empty(), Optional.empty(), true, TestEntryPoints.VLLM));

        String message = TestEntryPoints.kvcache((Refused) result, "server", "vllm", "engine vLLM");

        assertThat(message).contains("drop the image CMD").doesNotContain("launch-args-forwarded")
                .endsWith("so command must start the engine itself, for example vllm serve).");
    }

    @Test
    void argsWithoutCommandSaysTheEntrypointIsInvisibleAndOffersForwardingOnlyIfItForwards() {
        LaunchResult result = LaunchAnalysis.analyse(
                TestEntryPoints.input(Optional.empty(), Optional.of(List.of("--model", "m")), false, TestEntryPoints.SGLANG));

        String message = TestEntryPoints.kvcache((Refused) result, "server", "sglang", "engine SGLang");

        assertThat(message).contains("image ENTRYPOINT, which admission cannot see")
                .contains("Put the engine executable in command (for example python3 -m sglang.launch_server)")
                .endsWith("only if the image ENTRYPOINT passes appended arguments on to the engine.");
    }

    @Test
    void anEmptyRuntimeSourceLeavesNoEmptyParentheses() {
        Refused r = refusal(List.of("gosu", "app", "vllm"), List.of(), TestEntryPoints.VLLM);

        String message = TestEntryPoints.kvcache(r, "server", "vllm", "");

        assertThat(message).contains("entry point for runtime vllm, so").doesNotContain("()");
    }

    @Test
    void theBriefClauseNamesTheCodeAndTheSubject() {
        assertThat(LaunchMessages.brief(refusal(List.of("sh", "-lc", "vllm serve"), List.of(), TestEntryPoints.VLLM)))
                .isEqualTo("launch-shell-c: the shell \"sh\" runs \"-lc\"");
        assertThat(LaunchMessages.brief(refusal(List.of("tini", "--"), List.of(), TestEntryPoints.VLLM)))
                .isEqualTo("launch-no-program: the launcher \"tini\" has no program after it");
        assertThat(LaunchMessages.brief(refusal(List.of("gosu", "app", "vllm"), List.of(), TestEntryPoints.VLLM)))
                .isEqualTo("launch-unrecognised: \"gosu\" is not a recognised entry point");
        assertThat(LaunchMessages.brief(refusal(List.of("/app/start.sh"), List.of(), TestEntryPoints.VLLM)))
                .isEqualTo("launch-script: the script \"start.sh\" may not pass \"$@\" on");
        assertThat(LaunchMessages.brief(refusal(List.of("python3", "-m", "sglang.launch_server"), List.of(),
                TestEntryPoints.VLLM))).isEqualTo("launch-engine-mismatch: \"python3\" launches SGLang");
    }

    @Test
    void theBriefClauseStaysShortForALongHiddenCommandLine() {
        String longLine = "--split-string=vllm serve --model /models/" + "x".repeat(300);
        Refused r = refusal(List.of("env", longLine), List.of(), TestEntryPoints.VLLM);

        String brief = LaunchMessages.brief(r);

        assertThat(brief).startsWith("launch-hidden-command-line: the launcher \"env\" hides the command line in"
                + " \"--split-string=vllm serve --model /models/")
                .endsWith("…").hasSizeLessThan(160);
    }
}
