package io.kvcacheinjector.adapters.k8s.chart;

import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.render;
import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.WebhookClientConfig;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code webhook.url} and {@code webhook.caBundle}: the webhooks of a server that runs outside the cluster (the e2e
 * suite registers its server at {@code https://127.0.0.1:<port>} this way).
 */
class WebhookUrlValuesTest {
    private static final String BUNDLE = Base64.getEncoder().encodeToString(
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".getBytes(StandardCharsets.US_ASCII));

    @Test
    void withAUrlEveryWebhookIsCalledThereWithItsPathAndTheGivenCaBundle() {
        Map<String, WebhookClientConfig> configs = clientConfigs(
                render(values("webhook.url", "https://127.0.0.1:9443", "webhook.caBundle", BUNDLE)));

        assertThat(configs).containsOnlyKeys("inject.kvcache.kvcache-injector.io",
                "inject.cacheblend.kvcache-injector.io", "freeze.kvcache.kvcache-injector.io");
        assertThat(configs.get("inject.kvcache.kvcache-injector.io").getUrl())
                .isEqualTo("https://127.0.0.1:9443/kvcache/mutate");
        assertThat(configs.get("inject.cacheblend.kvcache-injector.io").getUrl())
                .isEqualTo("https://127.0.0.1:9443/cacheblend/mutate");
        assertThat(configs.get("freeze.kvcache.kvcache-injector.io").getUrl())
                .isEqualTo("https://127.0.0.1:9443/kvcache/validate");
        assertThat(configs.values()).allSatisfy(c -> {
            assertThat(c.getService()).isNull();
            assertThat(c.getCaBundle()).isEqualTo(BUNDLE);
        });
    }

    @Test
    void aTrailingSlashOrAPathPrefixOnTheUrlGivesOnePathSeparator() {
        assertThat(clientConfigs(render(values("webhook.url", "https://hooks.example:8443/"))).values())
                .extracting(WebhookClientConfig::getUrl)
                .contains("https://hooks.example:8443/kvcache/mutate");
        assertThat(clientConfigs(render(values("webhook.url", "https://hooks.example/kvcache-injector"))).values())
                .extracting(WebhookClientConfig::getUrl)
                .contains("https://hooks.example/kvcache-injector/kvcache/validate");
    }

    @Test
    void withAUrlButNoCaBundleTheWebhooksKeepTheChartsGeneratedCa() {
        RenderedChart chart = render(values("webhook.url", "https://127.0.0.1:9443"));
        String generatedCa = (String) ((Map<?, ?>) chart.all("Secret").getFirst().get("data")).get("ca.crt");
        assertThat(clientConfigs(chart).values()).allSatisfy(c -> assertThat(c.getCaBundle()).isEqualTo(generatedCa));
    }

    @Test
    void withoutAUrlTheWebhooksAreCalledThroughTheServiceAsBefore() {
        assertThat(clientConfigs(render(values("webhook.caBundle", BUNDLE))).values()).allSatisfy(c -> {
            assertThat(c.getUrl()).isNull();
            assertThat(c.getService().getPort()).isEqualTo(443);
            assertThat(c.getCaBundle()).isEqualTo(BUNDLE);
        });
    }

    @Test
    void aUrlTheApiServerWouldRejectIsRefusedAtRenderTimeNamingTheValue() {
        for (String bad : new String[] {"http://127.0.0.1:9443", "https://127.0.0.1:9443/x?y=1",
                "https://user:pw@127.0.0.1:9443", "127.0.0.1:9443"}) {
            assertThatThrownBy(() -> render(values("webhook.url", bad))).as(bad).hasMessageContaining("url");
        }
        assertThatThrownBy(() -> render(values("webhook.caBundle", "not base64!")))
                .hasMessageContaining("caBundle");
    }

    private static Map<String, WebhookClientConfig> clientConfigs(RenderedChart chart) {
        Map<String, WebhookClientConfig> configs = new LinkedHashMap<>();
        chart.one(MutatingWebhookConfiguration.class, "MutatingWebhookConfiguration").getWebhooks()
                .forEach(w -> configs.put(w.getName(), w.getClientConfig()));
        chart.one(ValidatingWebhookConfiguration.class, "ValidatingWebhookConfiguration").getWebhooks()
                .forEach(w -> configs.put(w.getName(), w.getClientConfig()));
        return configs;
    }
}
