package io.kvcacheinjector.training;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.bench.BenchReview;
import io.kvcacheinjector.app.engines.BuiltInEngines;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The AOT cache's training run ({@code aot-training}, deploy/aot-cache.sh) takes the path {@code serve} takes in a
 * cluster — the informers over fabric8's client and the JDK's HTTP client, certificate files, the CacheBlendEngine
 * controller and its leader election — against its stand-in API server, and a training that cannot do so fails with
 * one line and exit status 1 instead of writing a cache that leaves that path out.
 */
class AotTrainingCommandTest {
    @TempDir
    Path tmp;

    @Test
    void servesThroughTheInformersAndTheControllerAgainstTheStandInApiServer() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        AotTrainingCommand.ServeTraining done = AotTrainingCommand.serveAgainstTheStandIn(
                Optional.of(BuiltInEngines.FOLDER.toString()), new PrintStream(log, true, StandardCharsets.UTF_8));

        assertThat(done.reviews()).isEqualTo(AotTrainingCommand.ROUNDS * BenchReview.all().size());
        // every informer of the cluster view listed and watched, the watches as WebSocket upgrades (fabric8's way)
        assertThat(done.requests()).containsKeys("list kvcachepoolbindings", "watch kvcachepoolbindings",
                "list kvcachepools", "list kvcachebackends", "list cacheblendengines", "list secrets",
                "list namespaces", "list configmaps", "create leases", "patch daemonsets");
        assertThat(done.requests().get("websocket")).isEqualTo(done.requests().get("watch"));
        assertThat(log.toString(StandardCharsets.UTF_8))
                .contains("\"event\":\"cluster-view\",\"source\":\"Kubernetes API at " + done.apiServer())
                .contains("\"tls\":\"files\"")
                .contains("\"event\":\"cacheblend-controller-starting\"");
        assertThat(System.getProperty("kubeconfig")).as("the training's kubeconfig is not left behind").isNull();
        assertThat(System.getProperty("no.proxy")).as("nor its proxy exception").isNull();
    }

    @Test
    void aServeThatCannotStartFailsTheTrainingWithOneLineNamingTheCause() throws Exception {
        Path noEngines = Files.createDirectories(tmp.resolve("no-engines"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = AotTrainingCommand.run(new String[]{"--engines-dir", noEngines.toString()},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(status).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8).lines()
                .filter(l -> l.startsWith("aot-training: ")).toList())
                .singleElement().asString()
                .startsWith("aot-training: serve did not start against the stand-in API server: ")
                .contains(noEngines.toString());
    }

    @Test
    void anUnknownFlagIsOneLineNamingItAndTheHelp() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = AotTrainingCommand.run(new String[]{"--duration", "4s"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--duration")
                .contains("aot-training --help").hasLineCount(1);
    }
}
