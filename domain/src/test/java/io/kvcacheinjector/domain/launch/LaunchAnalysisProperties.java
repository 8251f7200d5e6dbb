package io.kvcacheinjector.domain.launch;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.launch.LaunchResult.Admitted;
import io.kvcacheinjector.domain.launch.LaunchResult.Refused;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Properties of launch analysis over command lines generated from the grammar of docs/reference/launch-analysis.md: a process
 * (an entry point, a shell, a script, a wrapper, a hidden or program-less launch) with arbitrary trailing tokens,
 * behind a chain of transparent launchers with valid options.
 */
class LaunchAnalysisProperties {

    /** Launcher prefixes with valid options and a program expected after them. */
    private static final List<List<String>> LAUNCHER_PREFIXES = List.of(
            List.of("env", "-i"),
            List.of("env"),
            List.of("/usr/bin/env", "-"),
            List.of("env", "A=B"),
            List.of("env", "-u", "HOME"),
            List.of("env", "-iu", "HOME", "--unset=PATH"),
            List.of("env", "-uS", "--chdir", "/app", "--split-string="),
            List.of("env", "-S", "", "--"),
            List.of("tini", "--"),
            List.of("tini"),
            List.of("/sbin/tini", "-g", "-p", "SIGTERM", "--"),
            List.of("dumb-init"),
            List.of("dumb-init", "-c"),
            List.of("dumb-init", "--rewrite", "15:2", "--"),
            List.of("busybox"),
            List.of("toybox"),
            List.of("timeout", "30"),
            List.of("timeout", "-s", "KILL", "30"),
            List.of("timeout", "--kill-after=5", "--foreground", "30"),
            List.of("timeout", "-k", "5", "--", "30"));

    /** Processes, each starting with its program, covering every step of docs/reference/launch-analysis.md. */
    private static final List<List<String>> PROCESSES = List.of(
            List.of("vllm", "serve"),
            List.of("/opt/venv/bin/vllm"),
            List.of("python3", "-m", "sglang.launch_server"),
            List.of("/usr/bin/python3", "-m", "sglang.launch_server", "--model-path", "m"),
            List.of("python", "-m", "vllm.entrypoints.openai.api_server"),
            List.of("python3", "-m", "vllm.entrypoints.openai.api_server"),
            List.of("gosu", "user", "vllm", "serve"),
            List.of("entrypoint"),
            List.of("sh", "-c", "vllm serve"),
            List.of("bash", "-euo", "pipefail", "-c"),
            List.of("/bin/bash", "-lc"),
            List.of("bash", "--rcfile", "-c", "/app/start.sh"),
            List.of("sh", "/app/start.sh"),
            List.of("sh", "-e", "/app/run"),
            List.of("zsh"),
            List.of("./run.sh"),
            List.of("env", "-S", "vllm serve"),
            List.of("env", "--split-string=vllm serve --model m"),
            List.of("tini", "--", "vllm"),
            List.of("tini", "--"),
            List.of("timeout", "30"),
            List.of("env", "-u"));

    /** Tokens that may trail a process; several mean something to a launcher or a shell. */
    private static final List<String> TRAILING = List.of("--model", "m", "serve", "-c", "--", "x.sh", "-S", "A=B",
            "", "--split-string=x", "-o", "+o", "30", "-m", "sglang.launch_server", "vllm", "tini");

    private static final Set<ReasonCode> FORWARDING_EXEMPTS = EnumSet.of(ReasonCode.LAUNCH_ARGS_WITHOUT_COMMAND,
            ReasonCode.LAUNCH_HIDDEN_COMMAND_LINE, ReasonCode.LAUNCH_SCRIPT, ReasonCode.LAUNCH_UNRECOGNISED);

    @Provide
    Arbitrary<EntryPoint> entryPoints() {
        return Arbitraries.of(TestEntryPoints.KNOWN);
    }

    @Provide
    Arbitrary<List<String>> prefixChains() {
        return Arbitraries.of(LAUNCHER_PREFIXES).list().ofMinSize(1).ofMaxSize(3).map(LaunchAnalysisProperties::flat);
    }

    @Provide
    Arbitrary<List<String>> processes() {
        Arbitrary<List<String>> trailing = Arbitraries.of(TRAILING).list().ofMaxSize(4);
        return Combinators.combine(Arbitraries.of(PROCESSES), trailing).as((p, t) -> flat(List.of(p, t)));
    }

    @Provide
    Arbitrary<List<String>> commandLines() {
        Arbitrary<List<String>> prefix = Arbitraries.of(LAUNCHER_PREFIXES).list().ofMaxSize(3)
                .map(LaunchAnalysisProperties::flat);
        return Combinators.combine(prefix, processes()).as((p, t) -> flat(List.of(p, t)));
    }

    @Property
    void splittingOneArgvBetweenCommandAndArgsNeverChangesTheVerdict(
            @ForAll("commandLines") List<String> argv, @ForAll int splitSeed, @ForAll boolean forwarding,
            @ForAll("entryPoints") EntryPoint declared) {
        int split = 1 + Math.floorMod(splitSeed, argv.size());
        LaunchResult whole = analyse(argv, forwarding, declared);

        LaunchResult split1 = LaunchAnalysis.analyse(TestEntryPoints.input(Optional.of(argv.subList(0, split)),
                Optional.of(argv.subList(split, argv.size())), forwarding, declared));

        assertThat(split1).as("%s split after %d", argv, split).isEqualTo(whole);
    }

    @Property
    void prependingTransparentLaunchersNeverChangesTheVerdict(
            @ForAll("prefixChains") List<String> prefix, @ForAll("processes") List<String> process,
            @ForAll boolean forwarding, @ForAll("entryPoints") EntryPoint declared) {
        LaunchResult bare = analyse(process, forwarding, declared);
        LaunchResult behindLaunchers = analyse(flat(List.of(prefix, process)), forwarding, declared);

        if (bare instanceof Refused r && r.code() == ReasonCode.LAUNCH_NO_PROGRAM) {
            // the program-less case stays one, now naming the outermost launcher
            assertThat(behindLaunchers).isEqualTo(new Refused(ReasonCode.LAUNCH_NO_PROGRAM,
                    LaunchAnalysis.basename(prefix.get(0)), r.option(), Optional.empty()));
        } else {
            assertThat(behindLaunchers).as("%s before %s", prefix, process).isEqualTo(bare);
        }
    }

    @Property
    void launchersAloneNeverNameAProgramEvenWithForwarding(
            @ForAll("prefixChains") List<String> prefix, @ForAll boolean forwarding, @ForAll("entryPoints") EntryPoint declared) {
        LaunchResult result = analyse(prefix, forwarding, declared);

        assertThat(result).isEqualTo(new Refused(ReasonCode.LAUNCH_NO_PROGRAM,
                LaunchAnalysis.basename(prefix.get(0)), Optional.empty(), Optional.empty()));
    }

    @Property
    void forwardingLiftsExactlyTheRefusalsItCanExempt(
            @ForAll("commandLines") List<String> argv, @ForAll boolean argsOnly, @ForAll("entryPoints") EntryPoint declared) {
        LaunchInput without = argsOnly
                ? TestEntryPoints.input(Optional.empty(), Optional.of(argv), false, declared)
                : TestEntryPoints.input(Optional.of(argv), Optional.empty(), false, declared);
        LaunchInput with = TestEntryPoints.input(without.command(), without.args(), true, declared);

        LaunchResult undeclared = LaunchAnalysis.analyse(without);
        LaunchResult declaredForwarding = LaunchAnalysis.analyse(with);

        switch (undeclared) {
            case Admitted a -> assertThat(declaredForwarding).isEqualTo(a);
            case Refused r when FORWARDING_EXEMPTS.contains(r.code()) ->
                    assertThat(declaredForwarding).isInstanceOfSatisfying(Admitted.class,
                            a -> assertThat(a.argsForwarded()).isTrue());
            case Refused r -> assertThat(declaredForwarding).isEqualTo(r);
        }
    }

    @Property
    void theVerdictAndItsMessageAreDeterministic(
            @ForAll("commandLines") List<String> argv, @ForAll boolean forwarding, @ForAll("entryPoints") EntryPoint declared) {
        LaunchResult first = analyse(new ArrayList<>(argv), forwarding, declared);
        LaunchResult second = analyse(List.copyOf(argv), forwarding, declared);

        assertThat(second).isEqualTo(first);
        if (first instanceof Refused r) {
            String message = TestEntryPoints.kvcache(r, "server", "vllm-ascend", "engine vLLM with manufacturer ascend");
            assertThat(TestEntryPoints.kvcache((Refused) second, "server", "vllm-ascend",
                    "engine vLLM with manufacturer ascend")).isEqualTo(message);
            assertThat(message).startsWith(r.code().id() + ": ").doesNotContain("\n").doesNotContain("\r");
            assertThat(LaunchMessages.brief(r)).startsWith(r.code().id() + ": ").doesNotContain("\n");
        }
    }

    private static LaunchResult analyse(List<String> command, boolean forwarding, EntryPoint declared) {
        return LaunchAnalysis.analyse(TestEntryPoints.input(Optional.of(command), Optional.empty(), forwarding, declared));
    }

    private static List<String> flat(List<List<String>> parts) {
        List<String> out = new ArrayList<>();
        parts.forEach(out::addAll);
        return out;
    }
}
