package io.kvcacheinjector.app.offline;

import io.kvcacheinjector.app.cli.Cli;
import io.kvcacheinjector.app.cli.KubeconfigOptions;

import io.kvcacheinjector.app.wiring.AdmissionWiring;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.Webhook;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The failure policy comes from the one wiring, whatever the command: a failing CacheBlend use case admits unless
 * fail-closed, a failing freeze always admits, a failing kvcache mutate always denies. Before the wiring was shared,
 * {@code review} answered with the default policy whatever {@code --cacheblend-fail-closed} said.
 */
class AdmissionWiringTest {
    private static final String CLUSTER = Path.of("..", "docs", "examples", "cluster").toString();

    @Test
    void theOfflineCommandsHonourTheFailClosedSwitchAsServeDoes() {
        AdmissionWiring open = wiring("--cluster", CLUSTER);
        AdmissionWiring closed = wiring("--cluster", CLUSTER, "--cacheblend-fail-closed");

        assertThat(open.failOpen()).containsExactlyInAnyOrder(Webhook.KVCACHE_VALIDATE, Webhook.CACHEBLEND_MUTATE);
        assertThat(closed.failOpen()).containsExactly(Webhook.KVCACHE_VALIDATE);
    }

    private static AdmissionWiring wiring(String... args) {
        try {
            return Cli.parse(new OfflineCluster(), args).open(java.util.Map.of()).wiring();
        } catch (KubeconfigOptions.Unreadable e) {
            throw new AssertionError(e);
        }
    }
}
