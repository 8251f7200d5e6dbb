package io.kvcacheinjector.domain.launch;

import io.kvcacheinjector.domain.text.MessageText;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.launch.LaunchResult.Admitted;
import io.kvcacheinjector.domain.launch.LaunchResult.Refused;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** One row of a launch table: a container's command and args, the Pod's declarations, and the expected verdict. */
record LaunchCase(Optional<List<String>> command, Optional<List<String>> args, boolean forwarding,
                  EntryPoint declared, LaunchResult expected) {

    static Builder command(String... command) {
        return new Builder(Optional.of(List.of(command)), Optional.empty(), false, TestEntryPoints.VLLM);
    }

    static Builder noCommand() {
        return new Builder(Optional.empty(), Optional.empty(), false, TestEntryPoints.VLLM);
    }

    LaunchInput input() {
        return TestEntryPoints.input(command, args, forwarding, declared);
    }

    @Override
    public String toString() {
        String verdict = switch (expected) {
            case Admitted a -> "admitted " + (a.launchProgram().isEmpty() ? "(no program)" : a.launchProgram())
                    + (a.argsForwarded() ? " by forwarding" : "");
            case Refused r -> r.code().id() + (r.subject().isEmpty() ? "" : " " + r.subject());
        };
        return "command " + show(command) + " args " + show(args) + (forwarding ? " +forwarding" : "")
                + (declared == TestEntryPoints.SGLANG ? " [sglang]" : "") + " -> " + verdict;
    }

    private static String show(Optional<List<String>> list) {
        return list.map(l -> l.stream().map(MessageText::quote).collect(Collectors.joining(", ", "[", "]")))
                .orElse("none");
    }

    static final class Builder {
        private final Optional<List<String>> command;
        private final Optional<List<String>> args;
        private final boolean forwarding;
        private final EntryPoint declared;

        private Builder(Optional<List<String>> command, Optional<List<String>> args, boolean forwarding,
                        EntryPoint declared) {
            this.command = command;
            this.args = args;
            this.forwarding = forwarding;
            this.declared = declared;
        }

        Builder args(String... args) {
            return new Builder(command, Optional.of(List.of(args)), forwarding, declared);
        }

        Builder forwarding() {
            return new Builder(command, args, true, declared);
        }

        Builder sglang() {
            return new Builder(command, args, forwarding, TestEntryPoints.SGLANG);
        }

        LaunchCase admits(String program) {
            return done(new Admitted(program, false));
        }

        LaunchCase admitsByForwarding(String program) {
            return done(new Admitted(program, true));
        }

        LaunchCase refuses(ReasonCode code, String subject) {
            return done(new Refused(code, subject, Optional.empty(), Optional.empty()));
        }

        LaunchCase refuses(ReasonCode code, String subject, String option) {
            return done(new Refused(code, subject, Optional.of(option), Optional.empty()));
        }

        LaunchCase refusesMismatch(String subject, EntryPoint resolved) {
            return done(new Refused(ReasonCode.LAUNCH_ENGINE_MISMATCH, subject, Optional.empty(),
                    Optional.of(resolved)));
        }

        private LaunchCase done(LaunchResult expected) {
            return new LaunchCase(command, args, forwarding, declared, expected);
        }
    }
}
