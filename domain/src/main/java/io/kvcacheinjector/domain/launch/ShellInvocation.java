package io.kvcacheinjector.domain.launch;

import java.util.List;
import java.util.Set;

/**
 * How a shell reads the tokens after its name (docs/reference/launch-analysis.md): a {@code -c} bundle, a command file, or
 * commands from stdin.
 */
sealed interface ShellInvocation permits ShellInvocation.DashC, ShellInvocation.CommandFile, ShellInvocation.Stdin {

    /** The shells, compared by exact basename. */
    Set<String> SHELLS = Set.of("sh", "bash", "dash", "ash", "zsh", "ksh");

    /** The shell receives {@code -c} in {@code option} (as written): appended tokens become {@code $0}, {@code $1}. */
    record DashC(String option) implements ShellInvocation {
    }

    /** The shell runs {@code file} (as written); appended tokens become the script's {@code $1}, {@code $2}. */
    record CommandFile(String file) implements ShellInvocation {
    }

    /** No command file: the shell reads its commands from stdin. */
    record Stdin() implements ShellInvocation {
    }

    static boolean isShell(String basename) {
        return SHELLS.contains(basename);
    }

    /** Reads {@code tokens}, the shell's arguments after its own name. */
    static ShellInvocation read(List<String> tokens) {
        int n = tokens.size();
        for (int j = 0; j < n; j++) {
            String token = tokens.get(j);
            if (token.equals("--")) {
                return j + 1 < n ? new CommandFile(tokens.get(j + 1)) : new Stdin();
            }
            boolean dash = token.startsWith("-");
            boolean plus = token.startsWith("+");
            if (!(dash || plus) || token.length() == 1) {
                return new CommandFile(token);
            }
            boolean longOption = token.startsWith("--");
            if (dash && !longOption && token.indexOf('c') >= 0) {
                return new DashC(token);
            }
            if (token.equals("--rcfile") || token.equals("--init-file")) {
                j++;
                continue;
            }
            if (!longOption && (token.endsWith("o") || token.endsWith("O"))) {
                j++;
            }
            // any other option is a flag
        }
        return new Stdin();
    }
}
