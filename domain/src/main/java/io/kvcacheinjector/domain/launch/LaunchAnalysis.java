package io.kvcacheinjector.domain.launch;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.launch.LaunchResult.Admitted;
import io.kvcacheinjector.domain.launch.LaunchResult.Refused;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides whether an argument appended to a container's {@code args} reaches the declared engine's own parser
 * (launch-and-flags.md §1.2, steps 1 and 3 to 9; step 2, the forwarding annotation's value, is checked by the
 * annotation parser, and the input carries its outcome). Kubernetes runs {@code command ++ args} as one argv when
 * {@code command} is set; an empty list counts as an absent field, as the container runtime treats it.
 *
 * <p>Pure and deterministic: the same input always gives an equal result, and nothing here throws for any input.
 */
public final class LaunchAnalysis {

    private LaunchAnalysis() {
    }

    /** The verdict for one container: admitted with what the record says, or refused with a {@code launch-*} code. */
    public static LaunchResult analyse(LaunchInput in) {
        List<String> command = in.command().orElse(List.of());
        List<String> args = in.args().orElse(List.of());
        boolean forwarding = in.forwardingDeclared();

        // Step 1: appending args would discard the image CMD.
        if (command.isEmpty() && args.isEmpty()) {
            return refused(ReasonCode.LAUNCH_NO_COMMAND, "");
        }
        // Step 3: the image ENTRYPOINT is invisible at admission.
        if (command.isEmpty()) {
            return forwarding ? new Admitted("", true) : refused(ReasonCode.LAUNCH_ARGS_WITHOUT_COMMAND, "");
        }
        List<String> argv = new ArrayList<>(command.size() + args.size());
        argv.addAll(command);
        argv.addAll(args);

        // Step 4: strip transparent launchers.
        LauncherStripping.Stripped stripped = LauncherStripping.strip(argv);
        return switch (stripped) {
            // Step 5.
            case LauncherStripping.Hidden h -> forwarding
                    ? new Admitted("", true)
                    : new Refused(ReasonCode.LAUNCH_HIDDEN_COMMAND_LINE, h.launcher(), Optional.of(h.option()),
                            Optional.empty());
            // Step 6: never exempted; names the basename of command[0].
            case LauncherStripping.NoProgram p -> new Refused(ReasonCode.LAUNCH_NO_PROGRAM,
                    basename(command.get(0)), p.danglingOption(), Optional.empty());
            case LauncherStripping.Program p ->
                    resolved(argv.subList(p.index(), argv.size()), forwarding, in.declared());
        };
    }

    /** Steps 7 to 9 on the resolved argv, whose first token is the program. */
    private static LaunchResult resolved(List<String> resolved, boolean forwarding, EntryPoint declared) {
        String program = basename(resolved.get(0));

        // Step 7: shells and scripts.
        if (ShellInvocation.isShell(program)) {
            ShellInvocation shell = ShellInvocation.read(resolved.subList(1, resolved.size()));
            if (shell instanceof ShellInvocation.DashC c) {
                return new Refused(ReasonCode.LAUNCH_SHELL_C, program, Optional.of(c.option()), Optional.empty());
            }
            if (shell instanceof ShellInvocation.CommandFile f && isScript(basename(f.file())) && !forwarding) {
                return refused(ReasonCode.LAUNCH_SCRIPT, basename(f.file()));
            }
            return unrecognised(program, forwarding);
        }
        if (isScript(program)) {
            return forwarding ? new Admitted(program, true) : refused(ReasonCode.LAUNCH_SCRIPT, program);
        }

        // Step 8: recognised entry points.
        Optional<EntryPoint> entryPoint = recognise(resolved);
        if (entryPoint.isPresent()) {
            return entryPoint.get() == declared
                    ? new Admitted(program, false)
                    : new Refused(ReasonCode.LAUNCH_ENGINE_MISMATCH, program, Optional.empty(), entryPoint);
        }
        // Step 9.
        return unrecognised(program, forwarding);
    }

    private static LaunchResult unrecognised(String program, boolean forwarding) {
        return forwarding ? new Admitted(program, true) : refused(ReasonCode.LAUNCH_UNRECOGNISED, program);
    }

    /** The two recognised launches of §1.6, compared exactly. */
    static Optional<EntryPoint> recognise(List<String> resolved) {
        String program = basename(resolved.get(0));
        if (program.equals("vllm")) {
            return Optional.of(EntryPoint.VLLM);
        }
        if (program.equals("python3") && resolved.size() >= 3 && resolved.get(1).equals("-m")
                && resolved.get(2).equals("sglang.launch_server")) {
            return Optional.of(EntryPoint.SGLANG);
        }
        return Optional.empty();
    }

    private static boolean isScript(String basename) {
        return basename.endsWith(".sh");
    }

    private static Refused refused(ReasonCode code, String subject) {
        return new Refused(code, subject, Optional.empty(), Optional.empty());
    }

    /** The text after the last {@code /} of a token ({@code /opt/venv/bin/python3} gives {@code python3}). */
    static String basename(String token) {
        return token.substring(token.lastIndexOf('/') + 1);
    }
}
