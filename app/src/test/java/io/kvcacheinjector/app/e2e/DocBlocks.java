package io.kvcacheinjector.app.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The executable blocks of a documentation page: a fenced block right after an HTML comment
 * {@code <!-- docs-test: KIND -->} (docs/how-to/run-e2e.md, "The docs suite"):
 * <ul>
 *   <li>{@code run}: a shell block run as written; it must exit 0;</li>
 *   <li>{@code run, fails}: a shell block that must exit non-zero (a refusal);</li>
 *   <li>{@code output}: what the preceding {@code run} block prints (stdout and stderr together) must match this
 *       block, line by line: {@code …} inside a line stands for any text, a line that is only {@code …} for any
 *       number of lines, trailing blanks and trailing empty lines do not count;</li>
 *   <li>{@code file NAME}: the block is saved as NAME in the page's work directory, as the page tells the reader;</li>
 *   <li>{@code node}: a shell block for a cluster that runs the chart's own image (the image path of the tutorial):
 *       the node suite (NodeE2E) runs it as written on a real kubelet; the loopback docs suite leaves it out.</li>
 * </ul>
 * A marker not followed by a fenced block, an unknown kind, or an {@code output} block with no {@code run} block
 * before it is an error naming the page and line.
 */
final class DocBlocks {
    private static final Pattern MARKER = Pattern.compile("^<!--\\s*docs-test:\\s*(.*?)\\s*-->\\s*$");
    private static final Pattern FENCE = Pattern.compile("^(```+|~~~+)\\s*([A-Za-z0-9_-]*)\\s*$");

    /** What a marked block is for. */
    enum Kind { RUN, RUN_FAILS, OUTPUT, FILE, NODE }

    /** One marked block; {@code line} is the 1-based line of its opening fence. */
    record Block(Kind kind, int line, String text, Optional<String> fileName) {
    }

    private DocBlocks() {
    }

    /** The marked blocks of {@code page}, in order. */
    static List<Block> parse(String page, String name) {
        List<String> lines = page.lines().toList();
        List<Block> blocks = new ArrayList<>();
        boolean sawRun = false;
        for (int i = 0; i < lines.size(); i++) {
            Matcher marker = MARKER.matcher(lines.get(i));
            if (!marker.matches()) {
                continue;
            }
            String spec = marker.group(1);
            Kind kind;
            Optional<String> file = Optional.empty();
            if (spec.equals("run")) {
                kind = Kind.RUN;
            } else if (spec.matches("run,\\s*fails")) {
                kind = Kind.RUN_FAILS;
            } else if (spec.equals("node")) {
                kind = Kind.NODE;
            } else if (spec.equals("output")) {
                kind = Kind.OUTPUT;
            } else if (spec.matches("file\\s+[A-Za-z0-9._/-]+")) {
                kind = Kind.FILE;
                file = Optional.of(spec.substring(4).strip());
            } else {
                throw new IllegalArgumentException(name + ":" + (i + 1) + ": unknown docs-test marker \"" + spec
                        + "\" (run, \"run, fails\", output, file NAME, node)");
            }
            int open = i + 1;
            Matcher fence = open < lines.size() ? FENCE.matcher(lines.get(open)) : null;
            if (fence == null || !fence.matches()) {
                throw new IllegalArgumentException(name + ":" + (i + 1) + ": the docs-test marker \"" + spec
                        + "\" must be followed directly by a fenced block");
            }
            String closing = fence.group(1);
            StringBuilder text = new StringBuilder();
            int j = open + 1;
            while (j < lines.size() && !lines.get(j).strip().equals(closing)) {
                text.append(lines.get(j)).append('\n');
                j++;
            }
            if (j == lines.size()) {
                throw new IllegalArgumentException(name + ":" + (open + 1) + ": the fenced block is not closed");
            }
            if (kind == Kind.OUTPUT && !sawRun) {
                throw new IllegalArgumentException(name + ":" + (i + 1) + ": an output block needs a run block before it");
            }
            sawRun |= kind == Kind.RUN || kind == Kind.RUN_FAILS;
            blocks.add(new Block(kind, open + 1, text.toString(), file));
            i = j;
        }
        return blocks;
    }

    /** Whether {@code actual} matches the {@code expected} output block (see the class comment). */
    static boolean matches(String expected, String actual) {
        List<String> want = trim(expected);
        List<String> got = trim(actual);
        return match(want, 0, got, 0);
    }

    private static boolean match(List<String> want, int w, List<String> got, int g) {
        if (w == want.size()) {
            return g == got.size();
        }
        if (want.get(w).equals("…")) {
            for (int k = g; k <= got.size(); k++) {
                if (match(want, w + 1, got, k)) {
                    return true;
                }
            }
            return false;
        }
        return g < got.size() && lineMatches(want.get(w), got.get(g)) && match(want, w + 1, got, g + 1);
    }

    private static boolean lineMatches(String want, String got) {
        if (!want.contains("…")) {
            return want.equals(got);
        }
        StringBuilder regex = new StringBuilder();
        for (String part : want.split("…", -1)) {
            if (!regex.isEmpty()) {
                regex.append(".*");
            }
            regex.append(Pattern.quote(part));
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(got).matches();
    }

    private static List<String> trim(String text) {
        List<String> lines = new ArrayList<>(text.lines().map(String::stripTrailing).toList());
        while (!lines.isEmpty() && lines.getLast().isEmpty()) {
            lines.removeLast();
        }
        while (!lines.isEmpty() && lines.getFirst().isEmpty()) {
            lines.removeFirst();
        }
        return lines;
    }
}
