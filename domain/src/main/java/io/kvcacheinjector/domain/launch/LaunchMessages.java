package io.kvcacheinjector.domain.launch;

import io.kvcacheinjector.domain.text.MessageText;
import static io.kvcacheinjector.domain.text.MessageText.quote;
import io.kvcacheinjector.domain.launch.LaunchResult.Refused;

/**
 * The text of a launch refusal (docs/reference/refusal-codes.md, docs/reference/launch-analysis.md): one paragraph that starts with
 * the code, names the container, the runtime and the token as written (double-quoted, control characters escaped),
 * says in one clause what the container would do instead of using the cache, and ends with the fix. Forwarding is
 * offered only where the declaration would actually admit the Pod.
 */
public final class LaunchMessages {

    /** The forwarding declaration as a Pod author writes it. */
    static final String FORWARDING = "kvcache.gpustack.ai/launch-args-forwarded: \"true\"";

    private static final int BRIEF_TOKEN_LIMIT = 60;

    private LaunchMessages() {
    }

    /**
     * The full refusal message of the kvcache webhook.
     *
     * @param r             the refusal
     * @param container     the target container's name
     * @param runtimeId     the declared engine's id, as the injection record names it
     * @param runtimeSource where the runtime came from, for example {@code engine vLLM with manufacturer ascend};
     *                      may be empty
     * @param declared      the declared engine's entry point, whose example the fix suggests
     */
    public static String kvcache(Refused r, String container, String runtimeId, String runtimeSource,
                                 EntryPoint declared) {
        String who = "container " + quote(container);
        String runtime = "runtime " + runtimeId + (runtimeSource.isBlank() ? "" : " (" + runtimeSource + ")");
        String launch = declared.example();
        String subject = quote(r.subject());
        String option = r.option().map(MessageText::quote).orElse("");
        String example = "(for example " + launch + ")";
        String noForwarding = "; declaring forwarding cannot change that. ";
        String text = switch (r.code()) {
            case LAUNCH_NO_COMMAND -> who + " declares neither command nor args, so the flags appended for "
                    + runtime + " would become the whole of args, and Kubernetes would drop the image CMD and start"
                    + " the image ENTRYPOINT with only those flags" + noForwarding
                    + "Put the engine executable in command and the image's launch arguments in args (this also"
                    + " replaces the image ENTRYPOINT, so command must start the engine itself, for example "
                    + launch + ").";
            case LAUNCH_ARGS_WITHOUT_COMMAND -> who + " sets args but no command, so it starts through the image"
                    + " ENTRYPOINT, which admission cannot see, and nothing shows that the flags appended for "
                    + runtime + " reach the engine instead of leaving it running without the cache. "
                    + "Put the engine executable in command " + example + ", or declare " + FORWARDING
                    + " only if the image ENTRYPOINT passes appended arguments on to the engine.";
            case LAUNCH_HIDDEN_COMMAND_LINE -> who + " runs the launcher " + subject + " with " + option
                    + ", which splits one argument into the command line itself, so admission cannot see where the"
                    + " flags appended for " + runtime + " would land, or whether a shell inside that string would"
                    + " swallow them, and the engine could start without the cache. "
                    + "Launch the engine directly, or put the connector flag inside that argument, or declare "
                    + FORWARDING + " only if the launch passes appended arguments on to the engine.";
            case LAUNCH_SHELL_C -> who + " runs the shell " + subject + " with " + option + ", so the flags"
                    + " appended for " + runtime + " would become the shell's $0, $1, … and never reach the engine,"
                    + " which would start without the cache" + noForwarding
                    + "Launch the engine directly (its executable in command, its arguments in args, for example "
                    + launch + "), or write the connector flag into the script yourself.";
            case LAUNCH_SCRIPT -> who + " runs the script " + subject + ", and whether the flags appended for "
                    + runtime + " reach the engine depends on whether the script passes \"$@\" on, which admission"
                    + " cannot see; if it does not, the engine starts without the cache. "
                    + "Launch the engine directly " + example + ", or add the connector flag inside the script,"
                    + " or declare " + FORWARDING + " only if the script passes \"$@\" to the engine.";
            case LAUNCH_NO_PROGRAM -> who + " runs the launcher " + subject + " with no program after it"
                    + r.option().map(o -> " (the command line ends with " + quote(o) + ", which expects an operand)")
                            .orElse("")
                    + ", so the first flag appended for " + runtime + " would be executed as the program and the"
                    + " engine would never start" + noForwarding
                    + "Put the engine and its arguments after the launcher, or put them in command and args"
                    + " directly " + example + ".";
            case LAUNCH_ENGINE_MISMATCH -> who + " launches " + resolvedLaunch(r) + ", but the Pod declares "
                    + runtime + ", so the injected configuration would be written for the wrong engine"
                    + noForwarding
                    + "Correct the kvcache.gpustack.ai/engine or kvcache.gpustack.ai/manufacturer annotation,"
                    + " or launch the declared engine " + example + ".";
            case LAUNCH_UNRECOGNISED -> who + " runs " + subject + ", which is not a recognised entry point for "
                    + runtime + ", so admission cannot show that the flags appended for it reach the engine, and a"
                    + " program that drops them leaves the engine running without the cache. "
                    + "Launch the engine directly " + example + ", or declare " + FORWARDING + " only if "
                    + subject + " passes appended arguments on to the engine.";
            default -> who + " has a launch that cannot be shown to pass appended flags to " + runtime
                    + (r.subject().isEmpty() ? "" : " (" + subject + ")")
                    + ", so the engine could start without the cache. Launch the engine directly " + example + ".";
        };
        return r.code().id() + ": " + text;
    }

    /**
     * One short clause naming the code and the subject, for example {@code launch-shell-c: the shell "bash" runs
     * "-c"}. The CacheBlend webhook uses it as the detail of its {@code launch-unproven} skip.
     */
    public static String brief(Refused r) {
        String subject = briefQuote(r.subject());
        String text = switch (r.code()) {
            case LAUNCH_NO_COMMAND -> "the container declares neither command nor args";
            case LAUNCH_ARGS_WITHOUT_COMMAND -> "the container sets args but no command";
            case LAUNCH_HIDDEN_COMMAND_LINE -> "the launcher " + subject + " hides the command line in "
                    + r.option().map(LaunchMessages::briefQuote).orElse("one argument");
            case LAUNCH_SHELL_C -> "the shell " + subject + " runs "
                    + r.option().map(LaunchMessages::briefQuote).orElse("-c");
            case LAUNCH_SCRIPT -> "the script " + subject + " may not pass \"$@\" on";
            case LAUNCH_NO_PROGRAM -> "the launcher " + subject + " has no program after it";
            case LAUNCH_ENGINE_MISMATCH -> subject + " launches " + r.resolvedEngine().map(EntryPoint::engineName)
                    .orElse("another engine");
            case LAUNCH_UNRECOGNISED -> subject + " is not a recognised entry point";
            default -> r.subject().isEmpty() ? "the launch is not proven" : "the launch through " + subject
                    + " is not proven";
        };
        return r.code().id() + ": " + text;
    }

    /** {@code "vllm", the vLLM entry point}; {@code "python3" -m sglang.launch_server, the SGLang entry point}. */
    private static String resolvedLaunch(Refused r) {
        String subject = quote(r.subject());
        return r.resolvedEngine().map(e -> subject
                        + e.tokens().subList(1, e.tokens().size()).stream().map(t -> " " + t).reduce("", String::concat)
                        + ", the " + e.engineName() + " entry point")
                .orElse(subject + ", another engine's entry point");
    }

    private static String briefQuote(String s) {
        if (s.codePointCount(0, s.length()) <= BRIEF_TOKEN_LIMIT) {
            return quote(s);
        }
        return quote(s.substring(0, s.offsetByCodePoints(0, BRIEF_TOKEN_LIMIT))) + "…";
    }
}
