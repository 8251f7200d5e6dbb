package io.kvcacheinjector.domain.launch;

import java.util.Optional;
import java.util.Set;

/**
 * The closed list of transparent launchers and each one's option grammar (docs/reference/launch-analysis.md). A launcher is
 * recognised by the exact basename of a token; {@code gosu}, {@code chroot}, {@code setsid} and the rest are not
 * launchers but programs.
 */
enum TransparentLauncher {
    /** GNU coreutils {@code env}: {@code -u/-C/-a} take an operand, {@code -S}/{@code --split-string} is opaque. */
    ENV("env", "uCa", Set.of("--unset", "--chdir", "--argv0"), "S", Set.of("--split-string"), 0),
    /** {@code tini}: {@code -p} (parent-death signal) and {@code -e} (expected exit code) take an operand. */
    TINI("tini", "pe", Set.of(), "", Set.of(), 0),
    /** {@code dumb-init}: {@code -r}/{@code --rewrite} takes an operand; {@code -c} is its own single-child flag. */
    DUMB_INIT("dumb-init", "r", Set.of("--rewrite"), "", Set.of(), 0),
    /** {@code busybox}: the applet name that follows is the next program. */
    BUSYBOX("busybox", "", Set.of(), "", Set.of(), 0),
    /** {@code toybox}: likewise. */
    TOYBOX("toybox", "", Set.of(), "", Set.of(), 0),
    /** GNU coreutils {@code timeout}: {@code -s/-k} take an operand, then one positional operand, the duration. */
    TIMEOUT("timeout", "sk", Set.of("--signal", "--kill-after"), "", Set.of(), 1);

    private final String basename;
    private final String shortWithOperand;
    private final Set<String> longWithOperand;
    private final String shortOpaque;
    private final Set<String> longOpaque;
    private final int leadingOperands;

    TransparentLauncher(String basename, String shortWithOperand, Set<String> longWithOperand, String shortOpaque,
                        Set<String> longOpaque, int leadingOperands) {
        this.basename = basename;
        this.shortWithOperand = shortWithOperand;
        this.longWithOperand = longWithOperand;
        this.shortOpaque = shortOpaque;
        this.longOpaque = longOpaque;
        this.leadingOperands = leadingOperands;
    }

    /** The launcher whose name is exactly {@code basename}, if any. */
    static Optional<TransparentLauncher> named(String basename) {
        for (TransparentLauncher l : values()) {
            if (l.basename.equals(basename)) {
                return Optional.of(l);
            }
        }
        return Optional.empty();
    }

    String basename() {
        return basename;
    }

    boolean shortTakesOperand(char letter) {
        return shortWithOperand.indexOf(letter) >= 0;
    }

    boolean shortIsOpaque(char letter) {
        return shortOpaque.indexOf(letter) >= 0;
    }

    boolean longTakesOperand(String name) {
        return longWithOperand.contains(name);
    }

    boolean longIsOpaque(String name) {
        return longOpaque.contains(name);
    }

    /** How many positional operands precede the program ({@code timeout}'s duration). */
    int leadingOperands() {
        return leadingOperands;
    }
}
