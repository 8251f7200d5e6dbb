package io.kvcacheinjector.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code bench --serve-process} as the command line runs it: a serve that cannot start is one loud line, exit 1. */
class BenchServeProcessCommandTest {

    @Test
    void aServeJvmThatCannotStartExitsOneNamingItsStatusAndItsError() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BenchCommand.run(new String[] {"--serve-process", "--duration", "2s", "--jvm-options",
                "-XX:+NoSuchOptionAnywhere"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("bench: the serve process exited with status 1 before it listened")
                .contains("NoSuchOptionAnywhere");
    }

    @Test
    void aServeJarThatIsNotThereIsRefusedWithTheFix() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BenchCommand.run(new String[] {"--serve-process", "--serve-jar", "/nonexistent/kvi.jar"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("bench: --serve-jar /nonexistent/kvi.jar is not a file; give the path of a built"
                        + " kvcache-injector.jar");
    }
}
