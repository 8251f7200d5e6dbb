package io.kvcacheinjector.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvcacheinjector.app.engines.BuiltInEngines;
import io.kvcacheinjector.app.engines.PluginJars;
import io.kvcacheinjector.domain.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --serve-process}: a real {@code serve} child (the test class path, as the jar runs it) driven by the
 * bench client for a few seconds; its report, and a child that cannot start.
 */
class ServeUnderLoadTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    private static final List<String> LAUNCH = List.of("-cp", PluginJars.testClasspath(),
            "io.kvcacheinjector.app.Main");
    private static final BenchOptions SHORT = BenchOptions.parse(new String[] {"--serve-process", "--duration", "3s",
            "--warmup", "1s", "--round", "500ms", "--connections", "2", "--sample", "100ms",
            "--engines-dir", BuiltInEngines.FOLDER.toString()});

    /**
     * {@code --informers}: {@code serve} as the chart runs it — the cluster view from a stand-in API server on the
     * loopback address through fabric8's informers, and the CacheBlendEngine controller in the same process.
     */
    private static final BenchOptions INFORMERS = BenchOptions.parse(new String[] {"--serve-process", "--informers",
            "--duration", "3s", "--warmup", "1s", "--round", "500ms", "--connections", "2", "--sample", "100ms",
            "--engines-dir", BuiltInEngines.FOLDER.toString()});

    private static Path cluster;
    private static ServeLoadReport report;
    private static String progress;
    private static ServeLoadReport informersReport;
    private static String informersProgress;

    @BeforeAll
    static void runOnce() throws Exception {
        cluster = ExampleCluster.writeToTemporaryDirectory();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> options = List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
        report = ServeUnderLoad.run(SHORT, cluster, JAVA, options, LAUNCH,
                new PrintStream(err, true, StandardCharsets.UTF_8));
        progress = err.toString(StandardCharsets.UTF_8);
        ByteArrayOutputStream informersErr = new ByteArrayOutputStream();
        informersReport = ServeUnderLoad.run(INFORMERS, cluster, JAVA, options, LAUNCH,
                new PrintStream(informersErr, true, StandardCharsets.UTF_8));
        informersProgress = informersErr.toString(StandardCharsets.UTF_8);
    }

    @AfterAll
    static void clean() {
        if (cluster != null) {
            ExampleCluster.delete(cluster);
        }
    }

    @Test
    void theServeProcessAnsweredEveryReviewAsTheRealWebhookMust() {
        assertThat(report.problems()).isEmpty();
        assertThat(report.valid()).isTrue();
        assertThat(report.load().requests()).isPositive();
        assertThat(report.load().errors()).isZero();
        assertThat(report.jvmOptions()).containsExactly("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
        assertThat(progress).contains("bench: starting serve (environment "
                        + (System.getenv("MALLOC_ARENA_MAX") == null ? "{MALLOC_ARENA_MAX=2}" : "{}") + "): " + JAVA
                        + " -Xmx128m -XX:+UseSerialGC")
                .contains(" serve --cluster " + cluster + " --host 127.0.0.1 --port 0 --health-port 0 --shutdown-delay 0"
                        + " --tls-cert ");
    }

    @Test
    void itReadsTheChildsResidentSetNotItsOwn() {
        assertThat(report.pid()).isNotEqualTo(ProcessHandle.current().pid());
        // read every 100 ms over 1 s of warm-up and 3 s measured
        assertThat(report.samples().size()).isBetween(20, 80);
        assertThat(report.idle().rss()).isPositive();
        for (ServeUnderLoad.Sample s : report.samples()) {
            assertThat(s.rss()).isPositive();
            assertThat(s.rssAnon() + s.rssFile()).isLessThanOrEqualTo(s.rss() + 1024 * 1024);
        }
        long median = report.secondHalfMedian(ServeUnderLoad.Sample::rss);
        assertThat(median).isPositive().isLessThanOrEqualTo(report.max(ServeUnderLoad.Sample::rss));
        // the child's heap is at most its -Xmx, whatever this JVM's is
        assertThat(report.heap().committedBytes()).isPositive().isLessThanOrEqualTo(128L * 1024 * 1024);
        assertThat(report.load().cpuMicrosPerRequest()).isPositive();
        assertThat(report.threads()).isPositive();
    }

    @Test
    void theMedianIsTakenOverTheSecondHalfOfTheSamples() {
        List<ServeUnderLoad.Sample> samples = new ArrayList<>();
        long[] rss = {900, 10, 20, 30, 40, 50}; // second half: 30, 40, 50
        for (int i = 0; i < rss.length; i++) {
            samples.add(new ServeUnderLoad.Sample(i, rss[i], rss[i] / 2, rss[i] / 2));
        }
        ServeLoadReport r = new ServeLoadReport(SHORT, 1, List.of(), 0, samples.getFirst(), samples, report.load(),
                report.heap(), 1, List.of());
        assertThat(r.secondHalfMedian(ServeUnderLoad.Sample::rss)).isEqualTo(40);
        assertThat(r.max(ServeUnderLoad.Sample::rss)).isEqualTo(900);
        assertThat(r.secondHalfMedian(ServeUnderLoad.Sample::rssAnon)).isEqualTo(20);
    }

    @Test
    void theTableAndTheJsonGiveIdleMedianAndHighestForEachReading() {
        String table = report.table();
        assertThat(table).contains("median of second half").contains("highest").contains("VmRSS")
                .contains("RssAnon").contains("RssFile").contains("serve's CPU").contains("-Xmx128m")
                .doesNotContain("NOT VALID");
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) Json.parse(report.json()).orElseThrow();
        assertThat(json).containsEntry("valid", true).containsEntry("mode", "serve-process");
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> resident = (Map<String, Map<String, Object>>) json.get("resident");
        assertThat(resident).containsOnlyKeys("VmRSS", "RssAnon", "RssFile");
        assertThat(((Number) resident.get("VmRSS").get("maxBytes")).longValue())
                .isEqualTo(report.max(ServeUnderLoad.Sample::rss));
        assertThat(((Number) resident.get("VmRSS").get("secondHalfMedianBytes")).longValue())
                .isEqualTo(report.secondHalfMedian(ServeUnderLoad.Sample::rss));
    }

    @Test
    void aServeThatCannotStartIsLoudWithItsExitStatusAndStderr() {
        assertThatThrownBy(() -> ServeUnderLoad.run(SHORT, cluster, JAVA, List.of("-XX:+NoSuchOptionAnywhere"),
                LAUNCH, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the serve process exited with status 1 before it listened")
                .hasMessageContaining("NoSuchOptionAnywhere");
    }

    @Test
    void aServeThatRefusesItsArgumentsIsLoudToo() {
        BenchOptions badEngines = BenchOptions.parse(new String[] {"--serve-process", "--duration", "2s",
                "--engines-dir", "/nonexistent/engines"});
        assertThatThrownBy(() -> ServeUnderLoad.run(badEngines, cluster, JAVA, List.of(), LAUNCH,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with status")
                .hasMessageContaining("/nonexistent/engines");
    }

    @Test
    void theDefaultOptionsAreTheChartsAndTakeTheAotCacheOnlyWhenItIsNewerThanTheJar(@TempDir Path dir)
            throws Exception {
        Path jar = Files.writeString(dir.resolve("kvcache-injector.jar"), "jar");
        assertThat(ServeUnderLoad.defaultJvmOptions(Optional.of(jar))).isEqualTo(ServeUnderLoad.CHART_JVM_OPTIONS);
        Path cache = Files.writeString(dir.resolve(ServeUnderLoad.AOT_CACHE), "cache");
        Files.setLastModifiedTime(cache, FileTime.from(Instant.now().minus(Duration.ofHours(1))));
        assertThat(ServeUnderLoad.defaultJvmOptions(Optional.of(jar))).isEqualTo(ServeUnderLoad.CHART_JVM_OPTIONS);
        Files.setLastModifiedTime(cache, FileTime.from(Instant.now().plus(Duration.ofMinutes(1))));
        assertThat(ServeUnderLoad.defaultJvmOptions(Optional.of(jar)))
                .startsWith(ServeUnderLoad.CHART_JVM_OPTIONS.toArray(String[]::new))
                .endsWith("-XX:AOTCache=" + cache);
        assertThat(ServeUnderLoad.defaultJvmOptions(Optional.empty())).isEqualTo(ServeUnderLoad.CHART_JVM_OPTIONS);
    }

    /**
     * The chart's template and default values, read as text (rendering it needs an API server for its lookups): each
     * fixed option of {@link ServeUnderLoad#CHART_JVM_OPTIONS} is in the template's command, the templated ones
     * carry the default values, and {@code -XX:MaxRAM} is the default memory limit.
     */
    @Test
    void theDefaultOptionsAreTheChartsTemplateWithItsDefaultValues() throws Exception {
        Path chart = Path.of("..", "deploy", "helm", "kvcache-injector");
        String template = Files.readString(chart.resolve("templates/deployment.yaml"));
        int webhook = template.indexOf("- name: webhook");
        String command = template.substring(template.indexOf("command:", webhook), template.indexOf("- -jar", webhook));
        String values = Files.readString(chart.resolve("values.yaml"));
        Map<String, String> defaults = new java.util.HashMap<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^  (\\w+): *\"?([^\"\\n#]*?)\"?\\s*$")
                .matcher(values.substring(values.indexOf("\njvm:"), values.indexOf("\npodDisruptionBudget:")));
        while (m.find()) {
            defaults.putIfAbsent(m.group(1), m.group(2).strip());
        }
        List<String> expected = new ArrayList<>();
        boolean otherBranch = false; // the template's {{- else }} branches: not the defaults
        for (String line : command.lines().map(String::strip).toList()) {
            if (line.startsWith("{{- else")) {
                otherBranch = true;
            } else if (line.startsWith("{{- end")) {
                otherBranch = false;
            }
            if (otherBranch || !line.startsWith("- ") || line.equals("- java") || line.contains("AOTCache")
                    || line.contains(".Values.jvm.extraOptions") || line.startsWith("- {{ .")) {
                continue;
            }
            String option = line.substring(2);
            java.util.regex.Matcher v = java.util.regex.Pattern.compile("\\{\\{ \\.Values\\.jvm\\.(\\w+) \\}\\}")
                    .matcher(option);
            StringBuilder filled = new StringBuilder();
            while (v.find()) {
                assertThat(defaults).as("values.yaml has a default for jvm.%s", v.group(1)).containsKey(v.group(1));
                v.appendReplacement(filled, defaults.get(v.group(1)));
            }
            v.appendTail(filled);
            expected.add(filled.toString());
        }
        assertThat(expected).as("the template's options, read").contains("-XX:+UseSerialGC", "-XX:-UsePerfData");
        assertThat(defaults).containsEntry("gc", "serial");
        String limit = values.substring(values.indexOf("  limits:"));
        java.util.regex.Matcher memory = java.util.regex.Pattern.compile("memory: (\\d+)Mi").matcher(limit);
        assertThat(memory.find()).isTrue();
        expected.addFirst("-XX:MaxRAM=" + memory.group(1) + "m");
        ServeUnderLoad.CHART_ENVIRONMENT.forEach((name, value) -> assertThat(template)
                .as("the chart's container environment").contains("- name: " + name + "\n              value: \"" + value + "\""));
        assertThat(ServeUnderLoad.CHART_JVM_OPTIONS).as("bench's default options are the chart's; update"
                + " ServeUnderLoad.CHART_JVM_OPTIONS with the chart").containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void withInformersServeReadTheClusterFromTheApiServerAndAnsweredEveryReviewCorrectly() {
        assertThat(informersReport.problems()).as(informersProgress).isEmpty();
        assertThat(informersReport.load().requests()).isPositive();
        assertThat(informersReport.load().errors()).isZero();
        assertThat(informersProgress).contains(" serve --namespace kvcache-injector --settings-namespace"
                        + " gpustack-system --reconcile-cacheblend --host 127.0.0.1")
                .doesNotContain("--cluster")
                .containsPattern("bench: the stand-in API server's requests: \\{.*list kvcachepoolbindings=\\d+"
                        + ".*watch kvcachepoolbindings=\\d+");
        assertThat(informersReport.table()).contains("cluster view: informers over a stand-in API server on loopback");
        assertThat(informersReport.json()).contains("\"clusterView\":\"informers\"");
        assertThat(report.json()).contains("\"clusterView\":\"files\"");
    }
}
