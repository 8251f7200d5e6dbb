package io.kvcacheinjector.training;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.bench.ServeUnderLoad;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * deploy/Dockerfile, read as text: the image's AOT cache is trained with deploy/aot-cache.sh's default JVM options
 * (what bin/aot-cache uses locally), which are the chart's, heap included: the build machine's memory would otherwise
 * size the training's heap, and one over 32 GB (uncompressed oops) makes a cache the chart's JVM cannot use. The build
 * then checks the cache with the ENTRYPOINT's JVM in the mode that stops when it cannot use it. Every RUN is in the
 * exec form, so that the Dockerfile builds on a base without a shell (deploy/image.sh's jlinked runtime) as on
 * eclipse-temurin:25-jre. {@link ServeUnderLoad#CHART_JVM_OPTIONS} is the chart's template with its default values
 * (ServeUnderLoadTest).
 */
class ImageBuildOptionsTest {
    private static final Path REPO = Path.of("..");
    private static final String CACHE = "/app/kvcache-injector.aot";
    private static final String JAR = "/app/kvcache-injector.jar";
    private static final String TRAINING_CLASS_PATH = JAR + ":/training/kvcache-injector-bench.jar"
            + ":/training/kvcache-injector-aot-training.jar";

    @Test
    void theImageTrainsTheCacheWithTheOptionsOfAotCacheShWhichAreTheCharts() throws Exception {
        List<String> run = execForm(instructions(dockerfile(), "RUN").getFirst());
        assertThat(run).as("the Dockerfile's training run").startsWith("java")
                .endsWith("-XX:AOTCacheOutput=" + CACHE, "-cp", TRAINING_CLASS_PATH,
                        AotTrainingMain.class.getName());
        List<String> training = run.subList(1, run.size() - 4);

        assertThat(training).as("the Dockerfile's training options are deploy/aot-cache.sh's defaults; change both")
                .containsExactlyElementsOf(aotCacheShDefaults());
        assertThat(ServeUnderLoad.CHART_JVM_OPTIONS).as("the chart's options hold every training option")
                .containsAll(training);
        // the chart's collector and heap: the memory limit, not the build machine's memory
        assertThat(training).contains("-XX:+UseSerialGC", "-XX:MaxRAM=320m", "-XX:MaxRAMPercentage=41");
    }

    @Test
    void theEntrypointStartsTheJarWithTheChartsOptionsAndTheCache() throws Exception {
        List<String> entrypoint = execForm(instruction(dockerfile(), "ENTRYPOINT"));
        assertThat(entrypoint).startsWith("java").endsWith("-jar", JAR);
        List<String> options = new ArrayList<>(entrypoint.subList(1, entrypoint.size() - 2));
        assertThat(options).contains("-XX:AOTCache=" + CACHE, "-XX:+UseSerialGC", "-XX:MaxRAMPercentage=41");
        options.remove("-XX:AOTCache=" + CACHE);
        assertThat(ServeUnderLoad.CHART_JVM_OPTIONS).as("the chart's options hold every ENTRYPOINT option")
                .containsAll(options);
    }

    /** A cache missing or made for another runtime stops the build, not the webhook's start. */
    @Test
    void theBuildChecksTheCacheWithTheEntrypointsJvmInTheModeThatStopsWhenItCannotUseIt() throws Exception {
        String dockerfile = dockerfile();
        List<String> runs = instructions(dockerfile, "RUN");
        assertThat(runs).as("RUN instructions: the training, then the check").hasSize(2);
        List<String> entrypoint = execForm(instruction(dockerfile, "ENTRYPOINT"));
        List<String> check = execForm(runs.get(1));
        assertThat(check).as("the check: the ENTRYPOINT's JVM and jar, with --help").startsWith("java")
                .endsWith("-jar", JAR, "--help");
        List<String> expected = new ArrayList<>(entrypoint.subList(1, entrypoint.size() - 2));
        expected.addAll(List.of("-XX:AOTMode=on", "-XX:MaxRAM=320m"));
        assertThat(check.subList(1, check.size() - 3)).as("the check's options: the ENTRYPOINT's, -XX:AOTMode=on and"
                + " the training's heap").containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void everyRunIsInTheExecFormAndTheBaseIsABuildArgumentDefaultingToTheTemurinJre() throws Exception {
        String dockerfile = dockerfile();
        assertThat(instructions(dockerfile, "RUN")).as("RUN instructions").isNotEmpty()
                .allSatisfy(run -> assertThat(run).as("a RUN without a shell").startsWith("["));
        assertThat(dockerfile).containsPattern("(?m)^ARG BASE=eclipse-temurin:25-jre\\nFROM \\$\\{BASE} AS training$");
    }

    /**
     * The image is the second stage: the same base and /app of the training stage, nothing else copied in; the
     * training's jars stay in the first (issue 30).
     */
    @Test
    void theImageTakesAppFromTheTrainingStageAndNeitherToolJar() throws Exception {
        String dockerfile = dockerfile();
        assertThat(instructions(dockerfile, "FROM")).containsExactly("${BASE} AS training", "${BASE}");
        String image = dockerfile.substring(dockerfile.lastIndexOf("\nFROM "));
        assertThat(instructions(image, "COPY")).containsExactly("--from=training /app /app");
        String training = dockerfile.substring(0, dockerfile.lastIndexOf("\nFROM "));
        assertThat(instructions(training, "COPY")).anySatisfy(c -> assertThat(c).contains(
                "bench/target/kvcache-injector-bench.jar", "aot-training/target/kvcache-injector-aot-training.jar")
                .endsWith(" /training/"));
    }

    private static String dockerfile() throws Exception {
        // instructions continued over lines with a trailing backslash, joined
        return Files.readString(REPO.resolve("deploy/Dockerfile")).replaceAll("\\\\\\n\\s*", " ");
    }

    private static List<String> instructions(String dockerfile, String keyword) {
        Matcher m = Pattern.compile("(?m)^" + keyword + " (.*)$").matcher(dockerfile);
        List<String> found = new ArrayList<>();
        while (m.find()) {
            found.add(m.group(1).strip());
        }
        return found;
    }

    private static String instruction(String dockerfile, String keyword) {
        List<String> found = instructions(dockerfile, keyword);
        assertThat(found).as("%s instructions in deploy/Dockerfile", keyword).hasSize(1);
        return found.getFirst();
    }

    /** The words of an exec-form instruction, {@code ["a", "b"]}. */
    private static List<String> execForm(String json) {
        assertThat(json).startsWith("[").endsWith("]");
        Matcher word = Pattern.compile("\"([^\"]*)\"").matcher(json);
        List<String> words = new ArrayList<>();
        while (word.find()) {
            words.add(word.group(1));
        }
        return words;
    }

    /** The options deploy/aot-cache.sh trains with when it is given none: its {@code set -- ...}. */
    private static List<String> aotCacheShDefaults() throws Exception {
        String script = Files.readString(REPO.resolve("deploy/aot-cache.sh")).replaceAll("\\\\\\n\\s*", " ");
        Matcher set = Pattern.compile("(?m)^\\s*set -- (.*)$").matcher(script);
        assertThat(set.find()).as("deploy/aot-cache.sh's default options (set -- ...)").isTrue();
        return List.of(set.group(1).strip().split("\\s+"));
    }
}
