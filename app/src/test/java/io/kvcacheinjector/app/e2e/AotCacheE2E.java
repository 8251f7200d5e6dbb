package io.kvcacheinjector.app.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The AOT cache the image build makes (here by deploy/aot-cache.sh, which bin/aot-cache runs, with the options of
 * deploy/Dockerfile's training run) works with the built jar: the training run ({@code aot-training}: {@code serve}
 * against a stand-in API server, then {@code bench}) writes a cache, a JVM started with it and {@code -XX:AOTMode=on}
 * (which stops the JVM when the cache cannot be used) loads the application's classes from it, and {@code inject}
 * answers byte for byte what it answers without the cache. Needs a JDK 25+ (the JVM running the tests); no API server.
 * The times are printed, never asserted (docs/explanation/performance-log.md, "AOT cache").
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class AotCacheE2E {
    private static final List<String> OPTIONS = List.of("--sun-misc-unsafe-memory-access=allow", "-XX:MaxRAM=320m",
            "-XX:MaxRAMPercentage=41", "-XX:MinRAMPercentage=41", "-XX:+UseSerialGC", "-Xmn16m", "-XX:-UsePerfData");

    private static Path repo;
    private static Path jar;
    private static Path dir;
    private static String java;

    @BeforeAll
    static void findTheJarAndAJdk25() throws IOException {
        Assumptions.assumeTrue(Runtime.version().feature() >= 25,
                "the AOT cache needs a JDK 25 or newer; this JVM is " + Runtime.version());
        repo = Path.of(System.getProperty("kvcache.e2e.repo", "..")).toAbsolutePath().normalize();
        jar = Path.of(System.getProperty("kvcache.e2e.jar", "target/kvcache-injector.jar")).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the built jar " + jar + " is missing; build it with bin/mvn -pl app -am"
                    + " package -DskipTests");
        }
        java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        dir = Files.createTempDirectory("kvcache-aot");
    }

    @AfterAll
    static void cleanUp() {
        if (dir != null) {
            E2eSupport.deleteRecursively(dir);
        }
    }

    @Test
    void theTrainingRunWritesACacheThatInjectLoadsItsClassesFromWithTheSameAnswer() throws Exception {
        Path cache = dir.resolve("kvcache-injector.aot");
        List<String> train = new ArrayList<>(List.of(repo.resolve("deploy/aot-cache.sh").toString(), jar.toString(),
                cache.toString()));
        train.addAll(OPTIONS);
        long t = System.nanoTime();
        Run training = run(train, List.of("JAVA=" + java));
        System.out.println("e2e: aot: training run and cache " + Timings.format(E2eSupport.since(t)) + ", "
                + (Files.isRegularFile(cache) ? Files.size(cache) / (1024 * 1024) : 0) + " MiB");
        assertThat(training.status()).as("deploy/aot-cache.sh exit status; stderr:%n%s", training.stderr())
                .isZero();
        assertThat(training.stderr()).contains("aot-cache: wrote " + cache)
                // the training took serve's path against an API server (a stand-in on loopback), not only bench's
                .containsPattern("aot-training: serve against the stand-in API server https://127\\.0\\.0\\.1:\\d+:"
                        + " ready after \\d+ ms, \\d+ reviews answered correctly, the CacheBlendEngine controller"
                        + " applied its DaemonSet");
        assertThat(cache).isNotEmptyFile();

        List<String> inject = List.of("-jar", jar.toString(), "inject", "--cluster",
                repo.resolve("docs/examples/cluster").toString(), "-f",
                repo.resolve("docs/examples/pods/vllm.yaml").toString());
        List<String> plain = new ArrayList<>(List.of(java));
        plain.addAll(OPTIONS);
        plain.addAll(inject);
        List<String> cached = new ArrayList<>(List.of(java));
        cached.addAll(OPTIONS);
        // the chart's logging options: without them JDK 25.0.3 writes a warning about adapters onto stdout, which
        // this test found (stdout is inject's output and serve's JSON log)
        cached.addAll(List.of("-XX:AOTCache=" + cache, "-XX:AOTMode=on", "-Xlog:disable", "-Xlog:all=warning:stderr",
                "-Xlog:aot*=error:stderr", "-Xlog:class+load=info:file=" + dir.resolve("classes.log")));
        cached.addAll(inject);

        t = System.nanoTime();
        Run without = run(plain, List.of());
        String withoutTime = Timings.format(E2eSupport.since(t));
        t = System.nanoTime();
        Run with = run(cached, List.of());
        System.out.println("e2e: aot: inject on one Pod without the cache " + withoutTime + ", with it "
                + Timings.format(E2eSupport.since(t)));

        assertThat(with.status()).as("inject with the cache; stderr:%n%s", with.stderr()).isZero();
        assertThat(with.stderr()).as("no warning about the cache").doesNotContainIgnoringCase("aot");
        assertThat(with.stdout()).isEqualTo(without.stdout()).contains("kvcache.gpustack.ai/injected");
        List<String> appClasses = Files.readAllLines(dir.resolve("classes.log")).stream()
                .filter(l -> l.contains(" io.kvcacheinjector.")).toList();
        assertThat(appClasses).as("the application's classes loaded").isNotEmpty();
        assertThat(appClasses.stream().filter(l -> l.contains("shared objects file")).count())
                .as("application classes loaded from the AOT cache, of %d", appClasses.size())
                .isGreaterThan(appClasses.size() / 2);
    }

    @Test
    void aTrainingRunThatFailsLeavesNoCacheAndSaysWhy() throws Exception {
        // a java that writes a cache and fails the way aot-training does: the cache must not survive it
        Path fakeJava = dir.resolve("failing-java");
        Files.writeString(fakeJava, """
                #!/bin/sh
                for a; do case "$a" in -XX:AOTCacheOutput=*) echo partial > "${a#-XX:AOTCacheOutput=}";; esac; done
                echo "aot-training: serve did not start against the stand-in API server: (a test)" >&2
                exit 1
                """);
        fakeJava.toFile().setExecutable(true);
        Path cache = dir.resolve("failed.aot");

        Run training = run(List.of(repo.resolve("deploy/aot-cache.sh").toString(), jar.toString(), cache.toString()),
                List.of("JAVA=" + fakeJava));

        assertThat(training.status()).isEqualTo(1);
        assertThat(training.stderr()).contains("aot-training: serve did not start against the stand-in API server")
                .contains("aot-cache: the training run failed (exit 1; its reason is above); no cache written");
        assertThat(cache).doesNotExist();
    }

    private record Run(int status, String stdout, String stderr) {
    }

    private static Run run(List<String> command, List<String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(repo.toFile());
        for (String e : env) {
            int eq = e.indexOf('=');
            builder.environment().put(e.substring(0, eq), e.substring(eq + 1));
        }
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("did not finish within 3 minutes: " + command);
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
