package io.kvcacheinjector.app;

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
        AdmissionWiring open = OfflineCluster.wiring(CliArgs.parse(new String[] {"--cluster", CLUSTER},
                OfflineCluster.VALUED, OfflineCluster.SWITCHES));
        AdmissionWiring closed = OfflineCluster.wiring(CliArgs.parse(new String[] {"--cluster", CLUSTER,
                "--cacheblend-fail-closed"}, OfflineCluster.VALUED, OfflineCluster.SWITCHES));

        assertThat(open.failOpen()).containsExactlyInAnyOrder(Webhook.KVCACHE_VALIDATE, Webhook.CACHEBLEND_MUTATE);
        assertThat(closed.failOpen()).containsExactly(Webhook.KVCACHE_VALIDATE);
    }
}
