package io.kvcacheinjector.domain.launch;

import java.util.List;
import java.util.Optional;

/**
 * Strips transparent launchers from the front of an argv, repeatedly (docs/reference/launch-analysis.md). The outcome is
 * the index of the program, a command line hidden inside one argument, or no program at all.
 */
final class LauncherStripping {

    /** What is left once the launchers are stripped. */
    sealed interface Stripped permits Program, Hidden, NoProgram {
    }

    /** The token at {@code index} is the program; it is not a launcher. */
    record Program(int index) implements Stripped {
    }

    /**
     * {@code launcher} (as written) was given {@code option} (as written), whose operand is a whole command line
     * the launcher splits itself.
     */
    record Hidden(String launcher, String option) implements Stripped {
    }

    /**
     * The tokens ran out before a program; {@code danglingOption} is the option left without its operand, if that is
     * how they ran out.
     */
    record NoProgram(Optional<String> danglingOption) implements Stripped {
    }

    private LauncherStripping() {
    }

    static Stripped strip(List<String> argv) {
        int i = 0;
        while (i < argv.size()) {
            Optional<TransparentLauncher> launcher = TransparentLauncher.named(LaunchAnalysis.basename(argv.get(i)));
            if (launcher.isEmpty()) {
                return new Program(i);
            }
            Stripped next = scanOptions(launcher.get(), argv, i);
            if (!(next instanceof Program p)) {
                return next;
            }
            i = p.index();
        }
        return new NoProgram(Optional.empty());
    }

    /**
     * Reads the tokens after the launcher at {@code at}; returns the index of the next program (which may itself
     * be a launcher, and may be {@code argv.size()} when nothing follows), or a hidden or program-less outcome.
     */
    private static Stripped scanOptions(TransparentLauncher launcher, List<String> argv, int at) {
        String written = argv.get(at);
        int n = argv.size();
        int pendingOperands = launcher.leadingOperands();
        int j = at + 1;
        while (j < n) {
            String token = argv.get(j);
            if (token.equals("--")) {
                // Options end here; a positional operand still owed (timeout's duration) comes next, then the
                // program: GNU getopt stops at "--" but the operands keep their meaning.
                j++;
                while (pendingOperands > 0 && j < n) {
                    pendingOperands--;
                    j++;
                }
                return j < n ? new Program(j) : new NoProgram(Optional.empty());
            }
            if (token.startsWith("--")) {
                int eq = token.indexOf('=');
                String name = eq < 0 ? token : token.substring(0, eq);
                if (launcher.longIsOpaque(name)) {
                    if (eq >= 0) {
                        if (eq == token.length() - 1) {
                            j++;
                            continue;
                        }
                        return new Hidden(written, token);
                    }
                    if (j + 1 >= n) {
                        return new NoProgram(Optional.of(token));
                    }
                    if (argv.get(j + 1).isEmpty()) {
                        j += 2;
                        continue;
                    }
                    return new Hidden(written, token);
                }
                if (launcher.longTakesOperand(name) && eq < 0) {
                    if (j + 1 >= n) {
                        return new NoProgram(Optional.of(token));
                    }
                    j += 2;
                    continue;
                }
                j++;
                continue;
            }
            if (token.startsWith("-")) {
                Optional<Stripped> decided = Optional.empty();
                int consumed = 1;
                for (int k = 1; k < token.length(); k++) {
                    char letter = token.charAt(k);
                    boolean last = k == token.length() - 1;
                    if (launcher.shortIsOpaque(letter)) {
                        if (!last) {
                            decided = Optional.of(new Hidden(written, token));
                        } else if (j + 1 >= n) {
                            decided = Optional.of(new NoProgram(Optional.of(token)));
                        } else if (argv.get(j + 1).isEmpty()) {
                            consumed = 2;
                        } else {
                            decided = Optional.of(new Hidden(written, token));
                        }
                        break;
                    }
                    if (launcher.shortTakesOperand(letter)) {
                        if (last) {
                            if (j + 1 >= n) {
                                decided = Optional.of(new NoProgram(Optional.of(token)));
                            }
                            consumed = 2;
                        }
                        break;
                    }
                }
                if (decided.isPresent()) {
                    return decided.get();
                }
                j += consumed;
                continue;
            }
            if (token.indexOf('=') >= 0) {
                j++;
                continue;
            }
            if (pendingOperands > 0) {
                pendingOperands--;
                j++;
                continue;
            }
            return new Program(j);
        }
        return new NoProgram(Optional.empty());
    }
}
