package io.kvcacheinjector.adapters.http.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContainerMemoryLimitTest {
    @TempDir
    Path root;

    private OptionalLong limit() {
        return new ContainerMemoryLimit(root).bytes();
    }

    private void write(String file, String text) throws IOException {
        Path p = root.resolve(file);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    @Test
    void cgroupV2ReportsTheLimitInBytes() throws IOException {
        write("memory.max", "536870912\n");
        assertThat(limit()).hasValue(536_870_912L);
    }

    @Test
    void cgroupV2MaxIsUnlimited() throws IOException {
        write("memory.max", "max\n");
        write("memory/memory.limit_in_bytes", "1048576\n"); // v2 wins; v1 is not consulted
        assertThat(limit()).isEmpty();
    }

    @Test
    void cgroupV1ReportsTheLimitWhenThereIsNoV2File() throws IOException {
        write("memory/memory.limit_in_bytes", "268435456\n");
        assertThat(limit()).hasValue(268_435_456L);
    }

    @Test
    void cgroupV1NoLimitIsUnlimited() throws IOException {
        write("memory/memory.limit_in_bytes", "9223372036854771712\n");
        assertThat(limit()).isEmpty();
    }

    @Test
    void noFileOrGarbageIsAbsent() throws IOException {
        assertThat(limit()).isEmpty();
        write("memory.max", "lots\n");
        assertThat(limit()).isEmpty();
        write("memory.max", "");
        assertThat(limit()).isEmpty();
    }

    @Test
    void aFileChangedBetweenScrapesIsReadAgain() throws IOException {
        write("memory.max", "1000\n");
        ContainerMemoryLimit limit = new ContainerMemoryLimit(root);
        assertThat(limit.bytes()).hasValue(1000);
        write("memory.max", "2000\n");
        assertThat(limit.bytes()).hasValue(2000);
    }
}
