package io.kvcacheinjector.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The repository stands on its own: every page a comment or a document cites is a file of this repository, and every
 * numbered decision cited (D1–D13, C1–C15) is defined in docs/explanation/decisions.md. Java comments (Javadoc and
 * line comments) and the Markdown of docs/, the README, deploy/ and tools/ are read; string literals in code are data,
 * not citations, and are left alone.
 */
class ReferencesResolveTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** A page name, with or without a path: {@code docs/reference/cli.md}, {@code ../how-to/run-e2e.md}, {@code cli.md}. */
    private static final Pattern PAGE = Pattern.compile("(?<![\\w/.-])((?:\\.{1,2}/)*[\\w.-]+(?:/[\\w.-]+)*\\.md)(?![\\w])");
    /** A Markdown link target. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(?:#[^)]*)?\\)");
    /** {@code D9} anywhere; a CacheBlend decision only as {@code decision C3} ({@code C1} alone is also a JIT compiler). */
    private static final Pattern DECISION = Pattern.compile("\\b(D)(\\d{1,2})\\b|\\bdecisions? (C)(\\d{1,2})\\b");
    private static final Pattern DEFINED = Pattern.compile("(?m)^\\| ([DC]\\d{1,2}) \\|");
    /**
     * Not read: the one test that reads the specification beside a checkout when it is there (by design), and this
     * test, whose comments show broken citations as examples.
     */
    private static final Set<String> NOT_READ = Set.of("RefusalCodeTableTest.java", "ReferencesResolveTest.java");

    @Test
    void everyCitedPageIsAFileOfThisRepository() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path file : sources()) {
            String text = citingText(file);
            if (file.toString().endsWith(".md")) {
                // a link's text is words, not a citation ("[decisions.md](../explanation/decisions.md)"): its target is
                text = text.replaceAll("\\[[^\\]\\n]*\\]\\(", "](");
            }
            Set<String> cited = new LinkedHashSet<>();
            Matcher page = PAGE.matcher(text);
            while (page.find()) {
                cited.add(page.group(1));
            }
            if (file.toString().endsWith(".md")) {
                Matcher link = LINK.matcher(text);
                while (link.find()) {
                    String target = link.group(1);
                    if (!target.contains("://") && !target.startsWith("mailto:")) {
                        cited.add(target);
                    }
                }
            }
            for (String c : cited) {
                if (!resolves(file, c)) {
                    broken.add(ROOT.relativize(file) + " cites " + c);
                }
            }
            if (text.contains("shared/")) {
                broken.add(ROOT.relativize(file) + " cites a path under shared/, which is not part of this repository");
            }
        }
        assertThat(broken).as("citations that do not resolve to a file of this repository").isEmpty();
    }

    @Test
    void everyCitedDecisionIsDefined() throws IOException {
        String decisions = Files.readString(ROOT.resolve("docs/explanation/decisions.md"));
        Set<String> defined = new LinkedHashSet<>();
        Matcher d = DEFINED.matcher(decisions);
        while (d.find()) {
            defined.add(d.group(1));
        }
        assertThat(defined).contains("D1", "D13", "C1", "C15");
        List<String> undefined = new ArrayList<>();
        for (Path file : sources()) {
            Matcher m = DECISION.matcher(citingText(file));
            while (m.find()) {
                String id = m.group(1) != null ? m.group(1) + m.group(2) : m.group(3) + m.group(4);
                if (!defined.contains(id)) {
                    undefined.add(ROOT.relativize(file) + " cites decision " + id);
                }
            }
        }
        assertThat(undefined).as("decisions cited but not defined in docs/explanation/decisions.md").isEmpty();
    }

    @Test
    void theCheckCatchesABrokenCitation() throws IOException {
        Path file = ROOT.resolve("docs/explanation/decisions.md");
        assertThat(resolves(file, "../reference/cli.md")).isTrue();
        assertThat(resolves(file, "../reference/kv-cache-pool.md")).isFalse();
        assertThat(resolves(ROOT.resolve("domain/src/main/java/X.java"), "docs/reference/cli.md")).isTrue();
        assertThat(resolves(ROOT.resolve("domain/src/main/java/X.java"), "launch-and-flags.md")).isFalse();
        assertThat(citingText(ROOT.resolve("docs/src/test/java/io/kvcacheinjector/docs/ReferencesResolveTest.java")))
                .doesNotContain("../reference/kv-cache-pool.md");
    }

    /** Relative to the citing file's folder, or to the repository root; a bare name must sit beside the citing page. */
    private static boolean resolves(Path file, String cited) {
        Path beside = file.getParent().resolve(cited).normalize();
        if (Files.exists(beside)) {
            return true;
        }
        return cited.contains("/") && !cited.startsWith(".") && Files.exists(ROOT.resolve(cited).normalize());
    }

    /** What of a file cites: the whole of a page; the comments of Java source. */
    static String citingText(Path file) throws IOException {
        String text = Files.readString(file);
        if (!file.toString().endsWith(".java")) {
            return text;
        }
        StringBuilder comments = new StringBuilder();
        boolean inBlock = false;
        for (String line : text.split("\n", -1)) {
            String t = line.strip();
            if (inBlock) {
                comments.append(t).append('\n');
                inBlock = !t.contains("*/");
            } else if (t.startsWith("/*")) {
                comments.append(t).append('\n');
                inBlock = !t.contains("*/");
            } else {
                int slash = lineComment(line);
                if (slash >= 0) {
                    comments.append(line.substring(slash)).append('\n');
                }
            }
        }
        return comments.toString();
    }

    /** The start of a {@code //} comment outside a string literal, or -1. */
    private static int lineComment(String line) {
        boolean inString = false;
        for (int i = 0; i + 1 < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\\' && inString) {
                i++;
            } else if (c == '"') {
                inString = !inString;
            } else if (!inString && c == '/' && line.charAt(i + 1) == '/') {
                return i;
            }
        }
        return -1;
    }

    /** Every Java source of the modules, and the Markdown of the documentation, the README, deploy/ and tools/. */
    private static List<Path> sources() throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(ROOT)) {
            walk.filter(Files::isRegularFile)
                    .filter(p -> {
                        String rel = ROOT.relativize(p).toString();
                        if (rel.startsWith(".") || rel.contains("/target/") || rel.startsWith("target/")) {
                            return false;
                        }
                        if (rel.endsWith(".java")) {
                            return rel.contains("/src/");
                        }
                        return rel.endsWith(".md") && (rel.startsWith("docs/") || rel.equals("README.md")
                                || rel.startsWith("deploy/") || rel.startsWith("tools/"));
                    })
                    .filter(p -> !NOT_READ.contains(p.getFileName().toString()))
                    .sorted().forEach(files::add);
        }
        assertThat(files).as("the sources read").hasSizeGreaterThan(100);
        return files;
    }
}
