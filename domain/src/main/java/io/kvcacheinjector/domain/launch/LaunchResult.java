package io.kvcacheinjector.domain.launch;

import io.kvcacheinjector.domain.ReasonCode;
import java.util.Optional;

/** The verdict of launch analysis: admitted with what the record says, or refused with a launch code. */
public sealed interface LaunchResult permits LaunchResult.Admitted, LaunchResult.Refused {

    /**
     * The appended arguments reach the engine (or forwarding was declared and used).
     *
     * @param launchProgram the basename of the resolved program; empty only when forwarding admitted a launch
     *                      with no visible program
     * @param argsForwarded whether the forwarding declaration is what admitted the launch
     */
    record Admitted(String launchProgram, boolean argsForwarded) implements LaunchResult {
    }

    /**
     * Refused with one of the {@code launch-*} codes.
     *
     * @param subject        the token the message must name, as written: the launcher for no-program and hidden,
     *                       the shell for shell-c, the script for script, the program for unrecognised and
     *                       engine-mismatch; empty for no-command and args-without-command
     * @param option         the option as written, where the message names one ({@code -c}, {@code -euc},
     *                       {@code -S}, {@code --split-string=…})
     * @param resolvedEngine for engine-mismatch, the engine the launch resolves to
     */
    record Refused(ReasonCode code, String subject, Optional<String> option, Optional<EntryPoint> resolvedEngine)
            implements LaunchResult {
    }
}
