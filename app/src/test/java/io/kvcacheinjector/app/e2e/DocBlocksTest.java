package io.kvcacheinjector.app.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The docs suite's markers and output matching, and the marked blocks of the real pages (no cluster needed). */
class DocBlocksTest {

    @Test
    void markedBlocksAreFoundInOrderWithTheirKindAndLine() {
        String page = """
                # Page
                ```bash
                echo not marked
                ```
                <!-- docs-test: file pod.yaml -->
                ```yaml
                kind: Pod
                ```
                <!-- docs-test: run -->
                ```bash
                echo hi
                ```
                <!-- docs-test: output -->
                ```
                hi
                ```
                <!-- docs-test: run, fails -->
                ```bash
                false
                ```
                """;
        List<DocBlocks.Block> blocks = DocBlocks.parse(page, "page.md");
        assertThat(blocks).extracting(DocBlocks.Block::kind).containsExactly(DocBlocks.Kind.FILE, DocBlocks.Kind.RUN,
                DocBlocks.Kind.OUTPUT, DocBlocks.Kind.RUN_FAILS);
        assertThat(blocks.get(0).fileName()).contains("pod.yaml");
        assertThat(blocks.get(1).text()).isEqualTo("echo hi\n");
        assertThat(blocks.get(1).line()).isEqualTo(10);
    }

    @Test
    void aMisplacedOrUnknownMarkerNamesThePageAndLine() {
        assertThatThrownBy(() -> DocBlocks.parse("text\n<!-- docs-test: run -->\n\n```bash\necho\n```\n", "a.md"))
                .hasMessage("a.md:2: the docs-test marker \"run\" must be followed directly by a fenced block");
        assertThatThrownBy(() -> DocBlocks.parse("<!-- docs-test: runn -->\n```\n```\n", "b.md"))
                .hasMessageStartingWith("b.md:1: unknown docs-test marker \"runn\"");
        assertThatThrownBy(() -> DocBlocks.parse("<!-- docs-test: output -->\n```\nx\n```\n", "c.md"))
                .hasMessage("c.md:1: an output block needs a run block before it");
    }

    @Test
    void anOutputThatChangedNoLongerMatches() {
        assertThat(DocBlocks.matches("serve\n--kv-cache-dtype\nbfloat16\n", "serve\n--kv-cache-dtype\nbfloat16\n\n"))
                .isTrue();
        assertThat(DocBlocks.matches("serve\n--kv-cache-dtype\nbfloat16\n", "serve\n--kv-cache-dtype\nfloat16\n"))
                .as("a changed value").isFalse();
        assertThat(DocBlocks.matches("a\nb\n", "a\nb\nc\n")).as("a line more").isFalse();
        assertThat(DocBlocks.matches("a\nb\nc\n", "a\nb\n")).as("a line less").isFalse();
    }

    @Test
    void anEllipsisStandsForAnyTextInALineOrAnyLines() {
        assertThat(DocBlocks.matches("denied the request: key-owned: …", "denied the request: key-owned: container x"))
                .isTrue();
        assertThat(DocBlocks.matches("denied the request: key-owned: …", "denied the request: launch-shell-c: x"))
                .isFalse();
        assertThat(DocBlocks.matches("first\n…\nlast\n", "first\nlast\n")).isTrue();
        assertThat(DocBlocks.matches("first\n…\nlast\n", "first\n1\n2\nlast\n")).isTrue();
        assertThat(DocBlocks.matches("first\n…\nlast\n", "first\n1\n2\n")).isFalse();
    }

    @Test
    void everyPageOfTheTutorialAndTheHowTosParsesAndTheTutorialRunsSomething() throws Exception {
        Path docs = Path.of("..", "docs");
        try (Stream<Path> pages = Stream.concat(Files.list(docs.resolve("tutorial")), Files.list(docs.resolve("how-to")))) {
            for (Path page : pages.filter(p -> p.toString().endsWith(".md")).toList()) {
                DocBlocks.parse(Files.readString(page), page.toString()); // throws on a malformed marker
            }
        }
        List<DocBlocks.Block> tutorial = DocBlocks.parse(
                Files.readString(docs.resolve("tutorial/install-and-first-pod.md")), "tutorial");
        assertThat(tutorial).filteredOn(b -> b.kind() == DocBlocks.Kind.RUN).hasSizeGreaterThan(5);
        assertThat(tutorial).filteredOn(b -> b.kind() == DocBlocks.Kind.OUTPUT).hasSizeGreaterThan(3);
    }
}
