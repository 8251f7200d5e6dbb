package io.kvcacheinjector.training;

import io.kvcacheinjector.app.CliReferenceTest;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The {@code aot-training} section of docs/reference/cli.md, generated from its definition as app's commands are. */
class AotTrainingReferenceTest {
    @Test
    void theAotTrainingSectionOfTheCliReferenceIsGeneratedFromItsDefinition() throws IOException {
        CliReferenceTest.assertSectionIsGenerated("aot-training", new AotTrainingCommand(System.out, System.err));
    }
}
