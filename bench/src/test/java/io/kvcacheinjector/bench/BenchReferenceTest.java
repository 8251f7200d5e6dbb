package io.kvcacheinjector.bench;

import io.kvcacheinjector.app.CliReferenceTest;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The {@code bench} section of docs/reference/cli.md, generated from its definition as app's commands are. */
class BenchReferenceTest {
    @Test
    void theBenchSectionOfTheCliReferenceIsGeneratedFromItsDefinition() throws IOException {
        CliReferenceTest.assertSectionIsGenerated("bench", new BenchCommand(System.out, System.err));
    }
}
