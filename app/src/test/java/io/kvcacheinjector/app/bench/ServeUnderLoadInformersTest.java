package io.kvcacheinjector.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.app.engines.BuiltInEngines;
import io.kvcacheinjector.app.engines.PluginJars;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code bench --serve-process --informers} measures {@code serve} as the chart runs it: the cluster view from an API
 * server through fabric8's informers (a stand-in on the loopback address, serving the example cluster) and the
 * CacheBlendEngine controller in the same process, so that the resident set under load is that of a Pod's
 * {@code serve}, not of the file-backed one.
 */
class ServeUnderLoadInformersTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    private static final List<String> LAUNCH = List.of("-cp", PluginJars.testClasspath(),
            "io.kvcacheinjector.app.Main");
    private static final BenchOptions INFORMERS = BenchOptions.parse(new String[] {"--serve-process", "--informers",
            "--duration", "3s", "--warmup", "1s", "--round", "500ms", "--connections", "2", "--sample", "100ms",
            "--engines-dir", BuiltInEngines.FOLDER.toString()});

    private static Path cluster;
    private static ServeLoadReport report;
    private static String progress;

    @BeforeAll
    static void runOnce() throws Exception {
        cluster = ExampleCluster.writeToTemporaryDirectory();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        report = ServeUnderLoad.run(INFORMERS, cluster, JAVA, List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"), LAUNCH,
                new PrintStream(err, true, StandardCharsets.UTF_8));
        progress = err.toString(StandardCharsets.UTF_8);
    }

    @AfterAll
    static void clean() {
        if (cluster != null) {
            ExampleCluster.delete(cluster);
        }
    }

    @Test
    void serveReadTheClusterThroughItsInformersAndAnsweredEveryReviewCorrectly() {
        assertThat(report.problems()).as(progress).isEmpty();
        assertThat(report.load().requests()).isPositive();
        assertThat(report.load().errors()).isZero();
        assertThat(progress).contains(" serve --namespace kvcache-injector --settings-namespace gpustack-system"
                + " --reconcile-cacheblend --host 127.0.0.1")
                .doesNotContain("--cluster")
                .containsPattern("bench: the stand-in API server's requests: \\{.*list kvcachepoolbindings=\\d+"
                        + ".*watch kvcachepoolbindings=\\d+");
    }

    @Test
    void theReportSaysWhichClusterViewWasMeasured() {
        assertThat(report.table()).contains("cluster view: informers over a stand-in API server on loopback");
        assertThat(report.json()).contains("\"clusterView\":\"informers\"");
    }
}
