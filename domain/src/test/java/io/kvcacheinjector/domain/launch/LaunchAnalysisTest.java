package io.kvcacheinjector.domain.launch;

import io.kvcacheinjector.domain.text.MessageText;
import static io.kvcacheinjector.domain.ReasonCode.LAUNCH_ARGS_WITHOUT_COMMAND;
import static io.kvcacheinjector.domain.ReasonCode.LAUNCH_ENGINE_MISMATCH;
import static io.kvcacheinjector.domain.ReasonCode.LAUNCH_HIDDEN_COMMAND_LINE;
import static io.kvcacheinjector.domain.ReasonCode.LAUNCH_NO_COMMAND;
import static io.kvcacheinjector.domain.ReasonCode.LAUNCH_NO_PROGRAM;
import static io.kvcacheinjector.domain.ReasonCode.LAUNCH_SCRIPT;
import static io.kvcacheinjector.domain.ReasonCode.LAUNCH_SHELL_C;
import static io.kvcacheinjector.domain.ReasonCode.LAUNCH_UNRECOGNISED;
import static io.kvcacheinjector.domain.launch.LaunchCase.command;
import static io.kvcacheinjector.domain.launch.LaunchCase.noCommand;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.launch.LaunchResult.Refused;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Launch analysis, table by table (docs/reference/launch-analysis.md). Every row checks the verdict; every refusal also checks
 * that the kvcache message names the container, the token as written and the fix, and offers forwarding only where
 * forwarding would admit the Pod.
 */
class LaunchAnalysisTest {

    private static final String CONTAINER = "server";

    /** The start of the fix each refusal must end with. */
    private static final Map<ReasonCode, String> FIX = Map.of(
            LAUNCH_NO_COMMAND, "Put the engine executable in command and the image's launch arguments in args",
            LAUNCH_ARGS_WITHOUT_COMMAND, "Put the engine executable in command",
            LAUNCH_HIDDEN_COMMAND_LINE, "Launch the engine directly, or put the connector flag inside that argument",
            LAUNCH_SHELL_C, "Launch the engine directly",
            LAUNCH_SCRIPT, "Launch the engine directly",
            LAUNCH_NO_PROGRAM, "Put the engine and its arguments after the launcher",
            LAUNCH_ENGINE_MISMATCH, "Correct the kvcache.gpustack.ai/engine or kvcache.gpustack.ai/manufacturer"
                    + " annotation, or launch the declared engine",
            LAUNCH_UNRECOGNISED, "Launch the engine directly");

    /** The refusals a forwarding declaration would lift; the others must never offer it. */
    private static final Set<ReasonCode> FORWARDING_HELPS = EnumSet.of(LAUNCH_ARGS_WITHOUT_COMMAND,
            LAUNCH_HIDDEN_COMMAND_LINE, LAUNCH_SCRIPT, LAUNCH_UNRECOGNISED);

    static Stream<LaunchCase> specExamples() {
        return Stream.of(
                command("vllm").args("serve", "--model", "m").admits("vllm"),
                command("/sbin/tini", "--").args("vllm", "serve").admits("vllm"),
                command("tini", "--").refuses(LAUNCH_NO_PROGRAM, "tini"),
                command("tini", "--").forwarding().refuses(LAUNCH_NO_PROGRAM, "tini"),
                command("env", "-iu", "HOME", "timeout", "30", "vllm").args("serve").admits("vllm"),
                command("dumb-init", "-c", "vllm").args("serve").admits("vllm"),
                command("bash", "-euo", "pipefail", "-c").args("vllm serve --model m")
                        .refuses(LAUNCH_SHELL_C, "bash", "-c"),
                command("bash", "-euo", "pipefail", "-c").args("vllm serve --model m").forwarding()
                        .refuses(LAUNCH_SHELL_C, "bash", "-c"),
                command("env", "-S", "vllm serve --model m").refuses(LAUNCH_HIDDEN_COMMAND_LINE, "env", "-S"),
                command("env", "-S", "vllm serve --model m").forwarding().admitsByForwarding(""),
                command("sh", "/app/start.sh").args("--model", "m").refuses(LAUNCH_SCRIPT, "start.sh"),
                command("sh", "/app/start.sh").args("--model", "m").forwarding().admitsByForwarding("sh"),
                command("python3", "-m", "sglang.launch_server").args("--model-path", "m")
                        .refusesMismatch("python3", TestEntryPoints.SGLANG),
                command("python3", "-m", "sglang.launch_server").args("--model-path", "m").forwarding()
                        .refusesMismatch("python3", TestEntryPoints.SGLANG),
                command("python", "-m", "vllm.entrypoints.openai.api_server").args("--model", "m")
                        .refuses(LAUNCH_UNRECOGNISED, "python"),
                command("python", "-m", "vllm.entrypoints.openai.api_server").args("--model", "m").forwarding()
                        .admitsByForwarding("python"));
    }

    static Stream<LaunchCase> commandAndArgsPresence() {
        return Stream.of(
                noCommand().refuses(LAUNCH_NO_COMMAND, ""),
                noCommand().forwarding().refuses(LAUNCH_NO_COMMAND, ""),
                command().args().refuses(LAUNCH_NO_COMMAND, ""),
                command().args().forwarding().refuses(LAUNCH_NO_COMMAND, ""),
                noCommand().args("vllm", "serve").refuses(LAUNCH_ARGS_WITHOUT_COMMAND, ""),
                command().args("--model", "m").refuses(LAUNCH_ARGS_WITHOUT_COMMAND, ""),
                noCommand().args("--model", "m").forwarding().admitsByForwarding(""),
                command("vllm", "serve").args().admits("vllm"),
                command("vllm", "serve").admits("vllm"));
    }

    static Stream<LaunchCase> envGrammar() {
        return Stream.of(
                command("env", "-i", "vllm", "serve").admits("vllm"),
                command("env", "-iu", "HOME", "vllm").args("serve").admits("vllm"),
                command("env", "-u", "NAME", "vllm").admits("vllm"),
                command("env", "-uNAME", "vllm").admits("vllm"),
                // -uS unsets a variable called S; it is not a split-string
                command("env", "-uS", "vllm", "serve").admits("vllm"),
                command("env", "--unset=X", "vllm").admits("vllm"),
                command("env", "--unset", "X", "vllm").admits("vllm"),
                // an operand-taking option consumes the next token even when it looks like an option
                command("env", "-u", "-S", "vllm").admits("vllm"),
                command("env", "-C", "/work", "--chdir", "/work", "--chdir=/w", "vllm").admits("vllm"),
                command("env", "-a", "engine", "--argv0", "engine", "vllm").admits("vllm"),
                command("env", "--ignore-environment", "--debug", "-0", "-v", "vllm").admits("vllm"),
                command("env", "-", "vllm").admits("vllm"),
                command("env", "A=B", "C=", "vllm", "serve").admits("vllm"),
                command("env", "--", "vllm", "serve").admits("vllm"),
                command("/usr/bin/env", "-i", "/opt/venv/bin/vllm", "serve").admits("vllm"),
                // empty split-strings are ignored and the scan continues
                command("env", "--split-string=", "vllm", "serve").admits("vllm"),
                command("env", "-S", "", "vllm", "serve").admits("vllm"),
                command("env", "--split-string", "", "vllm").admits("vllm"),
                command("env", "-iS", "", "vllm").admits("vllm"),
                // a split-string with content hides the command line, even when more tokens follow
                command("env", "-S", "vllm serve").args("--model", "m")
                        .refuses(LAUNCH_HIDDEN_COMMAND_LINE, "env", "-S"),
                command("env", "-S").args("vllm serve").refuses(LAUNCH_HIDDEN_COMMAND_LINE, "env", "-S"),
                command("env", "-Svllm serve").refuses(LAUNCH_HIDDEN_COMMAND_LINE, "env", "-Svllm serve"),
                command("env", "-iS", "vllm serve").refuses(LAUNCH_HIDDEN_COMMAND_LINE, "env", "-iS"),
                command("env", "--split-string=vllm serve")
                        .refuses(LAUNCH_HIDDEN_COMMAND_LINE, "env", "--split-string=vllm serve"),
                command("env", "--split-string", "vllm serve", "vllm", "serve")
                        .refuses(LAUNCH_HIDDEN_COMMAND_LINE, "env", "--split-string"),
                command("/usr/bin/env", "-S", "sh -c 'vllm serve'")
                        .refuses(LAUNCH_HIDDEN_COMMAND_LINE, "/usr/bin/env", "-S"),
                command("env", "--split-string=vllm serve").forwarding().admitsByForwarding(""),
                // abbreviations of --split-string are not modelled: --split is an operand-less flag
                command("env", "--split", "vllm", "serve").admits("vllm"),
                // no program after env
                command("env").refuses(LAUNCH_NO_PROGRAM, "env"),
                command("env", "-i").args().refuses(LAUNCH_NO_PROGRAM, "env"),
                command("env", "--").refuses(LAUNCH_NO_PROGRAM, "env"),
                command("env", "A=B").forwarding().refuses(LAUNCH_NO_PROGRAM, "env"),
                command("env", "-u").refuses(LAUNCH_NO_PROGRAM, "env", "-u"),
                command("env", "-iu").refuses(LAUNCH_NO_PROGRAM, "env", "-iu"),
                command("env", "--unset").refuses(LAUNCH_NO_PROGRAM, "env", "--unset"),
                command("env", "-S").refuses(LAUNCH_NO_PROGRAM, "env", "-S"),
                command("env", "--split-string").forwarding().refuses(LAUNCH_NO_PROGRAM, "env", "--split-string"),
                command("env", "-S", "").refuses(LAUNCH_NO_PROGRAM, "env"),
                command("/usr/bin/env", "-u", "HOME").refuses(LAUNCH_NO_PROGRAM, "env"));
    }

    static Stream<LaunchCase> tiniDumbInitBusyboxToyboxGrammar() {
        return Stream.of(
                command("tini", "--", "vllm", "serve").admits("vllm"),
                command("tini", "vllm", "serve").admits("vllm"),
                command("/sbin/tini", "-s", "-g", "-vvv", "--", "vllm").admits("vllm"),
                command("tini", "-p", "SIGTERM", "--", "vllm").admits("vllm"),
                command("tini", "-pSIGTERM", "vllm").admits("vllm"),
                command("tini", "-e", "143", "-e", "0", "--", "vllm").admits("vllm"),
                command("tini", "-ge", "143", "vllm").admits("vllm"),
                // -S is opaque for env only; for tini it is a flag
                command("tini", "-S", "vllm", "serve").admits("vllm"),
                command("tini").refuses(LAUNCH_NO_PROGRAM, "tini"),
                command("tini", "-e").refuses(LAUNCH_NO_PROGRAM, "tini", "-e"),
                command("tini", "-p").forwarding().refuses(LAUNCH_NO_PROGRAM, "tini", "-p"),
                command("dumb-init", "--single-child", "vllm").admits("vllm"),
                command("dumb-init", "-r", "15:2", "vllm").admits("vllm"),
                command("dumb-init", "-r15:2", "-v", "vllm").admits("vllm"),
                command("dumb-init", "--rewrite", "15:2", "--", "vllm").admits("vllm"),
                command("dumb-init", "--rewrite=15:2", "vllm").admits("vllm"),
                command("dumb-init", "-cr", "15:2", "vllm").admits("vllm"),
                command("dumb-init", "-r").refuses(LAUNCH_NO_PROGRAM, "dumb-init", "-r"),
                command("dumb-init", "--rewrite").refuses(LAUNCH_NO_PROGRAM, "dumb-init", "--rewrite"),
                command("dumb-init").args().refuses(LAUNCH_NO_PROGRAM, "dumb-init"),
                command("busybox", "vllm", "serve").admits("vllm"),
                command("toybox", "vllm", "serve").admits("vllm"),
                command("/bin/busybox", "sh", "-c", "vllm serve").refuses(LAUNCH_SHELL_C, "sh", "-c"),
                command("busybox", "-x", "vllm").admits("vllm"),
                command("busybox").refuses(LAUNCH_NO_PROGRAM, "busybox"),
                command("toybox", "--").refuses(LAUNCH_NO_PROGRAM, "toybox"));
    }

    static Stream<LaunchCase> timeoutGrammar() {
        return Stream.of(
                command("timeout", "30", "vllm", "serve").admits("vllm"),
                command("timeout", "30").args("vllm", "serve").admits("vllm"),
                command("timeout", "-s", "KILL", "30", "vllm").admits("vllm"),
                command("timeout", "-sKILL", "30", "vllm").admits("vllm"),
                command("timeout", "--signal", "KILL", "30", "vllm").admits("vllm"),
                command("timeout", "--signal=KILL", "30", "vllm").admits("vllm"),
                command("timeout", "--kill-after=5", "30", "vllm").admits("vllm"),
                command("timeout", "--kill-after", "5", "30", "vllm").admits("vllm"),
                command("timeout", "-k", "5", "-s", "TERM", "30", "vllm").admits("vllm"),
                command("timeout", "-k5", "30", "vllm").admits("vllm"),
                command("timeout", "--foreground", "--preserve-status", "-v", "30", "vllm").admits("vllm"),
                // the duration is consumed even when it comes after "--"
                command("timeout", "--", "30", "vllm").admits("vllm"),
                // only one positional operand: the next token is the program
                command("timeout", "30", "60", "vllm").refuses(LAUNCH_UNRECOGNISED, "60"),
                command("timeout", "30").refuses(LAUNCH_NO_PROGRAM, "timeout"),
                command("timeout").args("30").refuses(LAUNCH_NO_PROGRAM, "timeout"),
                command("timeout", "--").args("30").forwarding().refuses(LAUNCH_NO_PROGRAM, "timeout"),
                command("timeout", "-s").refuses(LAUNCH_NO_PROGRAM, "timeout", "-s"),
                command("timeout", "-k", "5", "--kill-after").refuses(LAUNCH_NO_PROGRAM, "timeout", "--kill-after"));
    }

    static Stream<LaunchCase> chains() {
        return Stream.of(
                command("env", "-i", "busybox", "sh", "-c", "vllm serve").refuses(LAUNCH_SHELL_C, "sh", "-c"),
                command("env", "-i", "busybox", "sh", "/app/start.sh").refuses(LAUNCH_SCRIPT, "start.sh"),
                command("tini", "--", "env", "-i", "timeout", "-s", "KILL", "30", "/opt/venv/bin/vllm", "serve")
                        .admits("vllm"),
                command("dumb-init", "--", "tini", "--", "toybox", "env", "A=B").args("vllm").admits("vllm"),
                command("tini", "--", "env", "-S", "vllm serve").refuses(LAUNCH_HIDDEN_COMMAND_LINE, "env", "-S"),
                command("tini", "--", "/usr/bin/env", "--split-string=vllm serve")
                        .refuses(LAUNCH_HIDDEN_COMMAND_LINE, "/usr/bin/env", "--split-string=vllm serve"),
                // a program-less chain names the basename of command[0]
                command("/usr/bin/dumb-init", "--", "tini", "--").refuses(LAUNCH_NO_PROGRAM, "dumb-init"),
                command("env", "-i", "timeout").args().refuses(LAUNCH_NO_PROGRAM, "env"),
                command("env", "-i", "timeout", "-s").refuses(LAUNCH_NO_PROGRAM, "env", "-s"),
                command("tini", "--", "python3", "-m", "sglang.launch_server").sglang().admits("python3"),
                command("tini", "--", "env", "-i", "python3", "-m", "sglang.launch_server")
                        .refusesMismatch("python3", TestEntryPoints.SGLANG));
    }

    static Stream<LaunchCase> notLaunchers() {
        return Stream.of(
                command("gosu", "user", "vllm", "serve").refuses(LAUNCH_UNRECOGNISED, "gosu"),
                command("gosu", "user", "vllm", "serve").forwarding().admitsByForwarding("gosu"),
                command("chroot", "/x", "vllm", "serve").refuses(LAUNCH_UNRECOGNISED, "chroot"),
                command("setsid", "vllm", "serve").refuses(LAUNCH_UNRECOGNISED, "setsid"),
                command("su-exec", "user", "vllm").refuses(LAUNCH_UNRECOGNISED, "su-exec"),
                command("/usr/bin/nohup", "vllm", "serve").refuses(LAUNCH_UNRECOGNISED, "nohup"),
                command("ENV", "vllm").refuses(LAUNCH_UNRECOGNISED, "ENV"),
                command("tini-static", "--", "vllm").refuses(LAUNCH_UNRECOGNISED, "tini-static"),
                command("entrypoint").args("--model", "m").refuses(LAUNCH_UNRECOGNISED, "entrypoint"),
                command("/usr/local/bin/run").forwarding().admitsByForwarding("run"),
                command("start").refuses(LAUNCH_UNRECOGNISED, "start"),
                command("").refuses(LAUNCH_UNRECOGNISED, ""));
    }

    static Stream<LaunchCase> shells() {
        return Stream.of(
                command("sh", "-c", "vllm serve").refuses(LAUNCH_SHELL_C, "sh", "-c"),
                command("/bin/bash", "-lc", "vllm serve").refuses(LAUNCH_SHELL_C, "bash", "-lc"),
                command("bash", "-euc", "vllm serve").refuses(LAUNCH_SHELL_C, "bash", "-euc"),
                command("bash", "-co", "pipefail", "vllm serve").refuses(LAUNCH_SHELL_C, "bash", "-co"),
                command("bash", "-x", "-e", "-c").args("vllm serve").refuses(LAUNCH_SHELL_C, "bash", "-c"),
                command("bash", "--login", "-c", "vllm serve").refuses(LAUNCH_SHELL_C, "bash", "-c"),
                command("sh", "-c").refuses(LAUNCH_SHELL_C, "sh", "-c"),
                command("sh", "-c").forwarding().refuses(LAUNCH_SHELL_C, "sh", "-c"),
                command("dash", "-ec", "x").refuses(LAUNCH_SHELL_C, "dash", "-ec"),
                command("ash", "-c", "x").refuses(LAUNCH_SHELL_C, "ash", "-c"),
                command("zsh", "+o", "nomatch", "-c", "x").refuses(LAUNCH_SHELL_C, "zsh", "-c"),
                command("/bin/ksh", "-c", "x").refuses(LAUNCH_SHELL_C, "ksh", "-c"),
                command("bash", "--rcfile", "/etc/rc", "-c", "x").refuses(LAUNCH_SHELL_C, "bash", "-c"),
                // --rcfile, --init-file, -o, +o and -O consume the next token, even one that looks like -c
                command("bash", "--rcfile", "-c", "/app/start.sh").refuses(LAUNCH_SCRIPT, "start.sh"),
                command("bash", "--init-file", "-c", "/app/run").refuses(LAUNCH_UNRECOGNISED, "bash"),
                command("bash", "-o", "-c", "/app/start.sh").refuses(LAUNCH_SCRIPT, "start.sh"),
                command("bash", "-euo", "-c", "/app/run").refuses(LAUNCH_UNRECOGNISED, "bash"),
                command("bash", "+o", "-c", "run").refuses(LAUNCH_UNRECOGNISED, "bash"),
                command("bash", "-O", "extglob", "/app/start.sh").refuses(LAUNCH_SCRIPT, "start.sh"),
                command("bash", "+O", "-c").refuses(LAUNCH_UNRECOGNISED, "bash"),
                // long options never carry a -c, even when they contain the letter
                command("bash", "--norc", "--noprofile", "/app/start.sh").refuses(LAUNCH_SCRIPT, "start.sh"),
                command("sh", "-C", "/app/start.sh").refuses(LAUNCH_SCRIPT, "start.sh"),
                command("sh", "+c", "/app/start.sh").refuses(LAUNCH_SCRIPT, "start.sh"),
                // command files
                command("sh", "/app/start.sh").refuses(LAUNCH_SCRIPT, "start.sh"),
                command("sh", "--", "/app/start.sh").refuses(LAUNCH_SCRIPT, "start.sh"),
                command("sh", "--", "-c.sh").refuses(LAUNCH_SCRIPT, "-c.sh"),
                command("sh", "-e").args("/app/start.sh", "-c", "x").refuses(LAUNCH_SCRIPT, "start.sh"),
                command("sh", "-e", "/app/start.sh", "-c", "x").forwarding().admitsByForwarding("sh"),
                command("sh", "/app/run").refuses(LAUNCH_UNRECOGNISED, "sh"),
                command("sh", "/app/run", "-c", "x").forwarding().admitsByForwarding("sh"),
                command("sh", "-", "-c").refuses(LAUNCH_UNRECOGNISED, "sh"),
                command("sh", "--").refuses(LAUNCH_UNRECOGNISED, "sh"),
                command("ksh", "-s").refuses(LAUNCH_UNRECOGNISED, "ksh"),
                command("bash").forwarding().admitsByForwarding("bash"),
                command("BASH", "-c", "x").refuses(LAUNCH_UNRECOGNISED, "BASH"),
                command("fish", "-c", "x").refuses(LAUNCH_UNRECOGNISED, "fish"));
    }

    static Stream<LaunchCase> scripts() {
        return Stream.of(
                command("./run.sh").args("--model", "m").refuses(LAUNCH_SCRIPT, "run.sh"),
                command("./run.sh").args("--model", "m").forwarding().admitsByForwarding("run.sh"),
                command("/app/entrypoint.sh").refuses(LAUNCH_SCRIPT, "entrypoint.sh"),
                command("tini", "--", "/app/start.sh", "serve").refuses(LAUNCH_SCRIPT, "start.sh"),
                command("tini", "--", "/app/start.sh").forwarding().admitsByForwarding("start.sh"),
                // a .sh token that is not the program or the command file is irrelevant
                command("vllm", "serve", "--chat-template", "/x/template.sh").admits("vllm"),
                command("env", "-u", "hook.sh", "vllm").admits("vllm"),
                command("bash", "--rcfile", "/etc/profile.sh", "/app/run").refuses(LAUNCH_UNRECOGNISED, "bash"),
                command("/app/start.sh.bak").refuses(LAUNCH_UNRECOGNISED, "start.sh.bak"),
                command("/app/sh.d/entrypoint").refuses(LAUNCH_UNRECOGNISED, "entrypoint"));
    }

    static Stream<LaunchCase> entryPoints() {
        return Stream.of(
                command("vllm").args("serve", "--model", "m").forwarding().admits("vllm"),
                command("/usr/local/bin/vllm", "serve").admits("vllm"),
                command("vllm").admits("vllm"),
                command("python3", "-m", "sglang.launch_server").sglang().admits("python3"),
                command("/opt/venv/bin/python3", "-m", "sglang.launch_server", "--model-path", "m").sglang()
                        .forwarding().admits("python3"),
                command("python3").args("-m", "sglang.launch_server", "--model-path", "m").sglang()
                        .admits("python3"),
                command("vllm", "serve").sglang().refusesMismatch("vllm", TestEntryPoints.VLLM),
                command("vllm", "serve").sglang().forwarding().refusesMismatch("vllm", TestEntryPoints.VLLM),
                command("python", "-m", "sglang.launch_server").sglang().refuses(LAUNCH_UNRECOGNISED, "python"),
                command("python3.12", "-m", "sglang.launch_server").sglang()
                        .refuses(LAUNCH_UNRECOGNISED, "python3.12"),
                command("python3", "-msglang.launch_server").sglang().refuses(LAUNCH_UNRECOGNISED, "python3"),
                command("python3", "-u", "-m", "sglang.launch_server").sglang()
                        .refuses(LAUNCH_UNRECOGNISED, "python3"),
                command("python3", "-m").sglang().refuses(LAUNCH_UNRECOGNISED, "python3"),
                command("sglang", "serve").sglang().refuses(LAUNCH_UNRECOGNISED, "sglang"),
                command("sglang", "serve").sglang().forwarding().admitsByForwarding("sglang"),
                command("python3", "-m", "vllm.entrypoints.openai.api_server")
                        .refuses(LAUNCH_UNRECOGNISED, "python3"),
                command("VLLM", "serve").refuses(LAUNCH_UNRECOGNISED, "VLLM"),
                command("vllm-serve").refuses(LAUNCH_UNRECOGNISED, "vllm-serve"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource({"specExamples", "commandAndArgsPresence", "envGrammar", "tiniDumbInitBusyboxToyboxGrammar",
            "timeoutGrammar", "chains", "notLaunchers", "shells", "scripts", "entryPoints"})
    void givesTheVerdictTheReferenceStates(LaunchCase c) {
        LaunchResult result = LaunchAnalysis.analyse(c.input());

        assertThat(result).isEqualTo(c.expected());
        if (result instanceof Refused r) {
            assertMessageNamesContainerTokenAndFix(r, c.declared());
        }
    }

    @Test
    void splittingOneProcessBetweenCommandAndArgsGivesOneVerdict() {
        List<List<String>> processes = List.of(
                List.of("vllm", "serve", "--model", "m"),
                List.of("env", "-iu", "HOME", "timeout", "30", "vllm", "serve"),
                List.of("bash", "-euo", "pipefail", "-c", "vllm serve"),
                List.of("env", "-S", "vllm serve"),
                List.of("sh", "/app/start.sh", "--model", "m"),
                List.of("tini", "--", "timeout", "-s", "KILL", "30"),
                List.of("python3", "-m", "sglang.launch_server", "--model-path", "m"));
        for (List<String> process : processes) {
            for (boolean forwarding : List.of(false, true)) {
                LaunchResult allInCommand = LaunchAnalysis.analyse(
                        TestEntryPoints.input(Optional.of(process), Optional.empty(), forwarding, TestEntryPoints.VLLM));
                for (int split = 1; split <= process.size(); split++) {
                    LaunchInput splitInput = TestEntryPoints.input(Optional.of(process.subList(0, split)),
                            Optional.of(process.subList(split, process.size())), forwarding, TestEntryPoints.VLLM);
                    assertThat(LaunchAnalysis.analyse(splitInput))
                            .as("%s split after %d, forwarding %s", process, split, forwarding)
                            .isEqualTo(allInCommand);
                }
            }
        }
    }

    @Test
    void theSameProcessEntirelyInArgsIsTheInvisibleEntrypointCase() {
        LaunchInput argsOnly = TestEntryPoints.input(Optional.empty(), Optional.of(List.of("vllm", "serve")), false,
                TestEntryPoints.VLLM);

        assertThat(LaunchAnalysis.analyse(argsOnly)).isInstanceOfSatisfying(Refused.class,
                r -> assertThat(r.code()).isEqualTo(LAUNCH_ARGS_WITHOUT_COMMAND));
    }

    private static void assertMessageNamesContainerTokenAndFix(Refused r, EntryPoint declared) {
        String runtime = declared == TestEntryPoints.VLLM ? "vllm" : "sglang";
        String source = declared == TestEntryPoints.VLLM ? "engine vLLM" : "engine SGLang";
        String message = TestEntryPoints.kvcache(r, CONTAINER, runtime, source);

        assertThat(message).startsWith(r.code().id() + ": ");
        assertThat(message).contains("container \"" + CONTAINER + "\"");
        assertThat(message).contains("runtime " + runtime + " (" + source + ")");
        if (!r.subject().isEmpty()) {
            assertThat(message).contains(MessageText.quote(r.subject()));
        }
        r.option().ifPresent(option -> assertThat(message).contains(MessageText.quote(option)));
        assertThat(message).doesNotContain("\n").endsWith(".");
        String lastSentence = message.substring(message.lastIndexOf(". ") + 2);
        assertThat(lastSentence).as("the message ends with the fix").startsWith(FIX.get(r.code()));
        if (FORWARDING_HELPS.contains(r.code())) {
            assertThat(lastSentence).contains("kvcache.gpustack.ai/launch-args-forwarded: \"true\"");
        } else {
            assertThat(message).doesNotContain("launch-args-forwarded");
        }
    }
}
