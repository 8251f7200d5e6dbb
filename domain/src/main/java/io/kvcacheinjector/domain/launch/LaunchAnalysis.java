package io.kvcacheinjector.domain.launch;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.launch.LaunchResult.Admitted;
import io.kvcacheinjector.domain.launch.LaunchResult.Refused;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides whether an argument appended to a container's {@code args} reaches the declared engine's own parser
 * (docs/reference/launch-analysis.md, steps 1 and 3 to 9; step 2, the forwarding annotation's value, is checked by the
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
                    resolved(argv.subList(p.index(), argv.size()), forwarding, in.declared(), in.known());
        };
    }

    /** Steps 7 to 9 on the resolved argv, whose first token is the program. */
    private static LaunchResult resolved(List<String> resolved, boolean forwarding, EntryPoint declared,
                                         List<EntryPoint> known) {
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

        // Step 8: recognised entry points (those of the installed engines).
        Optional<EntryPoint> entryPoint = recognise(resolved, known);
        if (entryPoint.isPresent()) {
            return entryPoint.get().sameLaunch(declared)
                    ? new Admitted(program, false)
                    : new Refused(ReasonCode.LAUNCH_ENGINE_MISMATCH, program, Optional.empty(), entryPoint);
        }
        // Step 9.
        return unrecognised(program, forwarding);
    }

    private static LaunchResult unrecognised(String program, boolean forwarding) {
        return forwarding ? new Admitted(program, true) : refused(ReasonCode.LAUNCH_UNRECOGNISED, program);
    }

    /**
     * The installed engine entry point that {@code resolved} starts with; where several do, the one with the most
     * tokens ({@code python3 -m module} before a bare {@code python3}), so the answer never depends on load order.
     */
    static Optional<EntryPoint> recognise(List<String> resolved, List<EntryPoint> known) {
        EntryPoint best = null;
        for (EntryPoint e : known) {
            if (e.recognises(resolved) && (best == null || e.tokens().size() > best.tokens().size())) {
                best = e;
            }
        }
        return Optional.ofNullable(best);
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
