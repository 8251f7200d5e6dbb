package io.kvcacheinjector.adapters.k8s.chart;

import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.NAMESPACE;
import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.render;
import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code networkPolicy.*} and {@code image.digest}: the chart's hardening (docs/reference/chart-values.md, "Network
 * policy"; docs/explanation/decisions.md, "Chart findings accepted (issue 30)"), rendered by a real Helm.
 */
class NetworkPolicyValuesTest {
    private static final String DIGEST = "sha256:" + "0123456789abcdef".repeat(4);

    @Test
    void noNetworkPolicyByDefault() {
        assertThat(render().kinds()).doesNotContain("NetworkPolicy");
    }

    @Test
    void enabledItAdmitsEverySourceOnTheWebhookAndProbePortsOnlyAndLetsOutOnlyTheApiServerPortsAndDns() {
        NetworkPolicy policy = policy(render(values("networkPolicy.enabled", true)));
        assertThat(policy.getMetadata().getName()).isEqualTo("kvi-kvcache-injector");
        assertThat(policy.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
        // the same Pods as the Service and the Deployment
        Deployment deployment = render().one(Deployment.class, "Deployment");
        assertThat(policy.getSpec().getPodSelector().getMatchLabels())
                .isEqualTo(deployment.getSpec().getSelector().getMatchLabels());
        assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");

        NetworkPolicyIngressRule webhook = policy.getSpec().getIngress().get(0);
        assertThat(policy.getSpec().getIngress()).hasSize(2);
        assertThat(ports(webhook.getPorts())).containsExactly("TCP/8443");
        assertThat(webhook.getFrom()).as("every source: the API server's address is not a Pod").isNullOrEmpty();
        NetworkPolicyIngressRule probes = policy.getSpec().getIngress().get(1);
        assertThat(ports(probes.getPorts())).containsExactly("TCP/8081");
        assertThat(deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getPorts())
                .as("the container port the probes use").anySatisfy(p -> {
                    assertThat(p.getName()).isEqualTo("health");
                    assertThat(p.getContainerPort()).isEqualTo(8081);
                });
        assertThat(probes.getFrom()).as("every source: the kubelet probes from the node's address").isNullOrEmpty();

        List<NetworkPolicyEgressRule> egress = policy.getSpec().getEgress();
        assertThat(egress).hasSize(2);
        assertThat(ports(egress.get(0).getPorts())).containsExactly("TCP/443", "TCP/6443");
        assertThat(egress.get(0).getTo()).isNullOrEmpty();
        assertThat(ports(egress.get(1).getPorts())).containsExactly("UDP/53", "TCP/53");
        assertThat(egress.get(1).getTo()).isNullOrEmpty();
    }

    @Test
    void thePeersTheApiServerAddressesAndPortsAndTheDnsPeersAreTheValuesGiven() {
        NetworkPolicy policy = policy(render(values(
                "networkPolicy.enabled", true,
                "networkPolicy.webhookFrom[0].ipBlock.cidr", "10.0.0.0/24",
                "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.team", "monitoring",
                "networkPolicy.probesFrom[0].ipBlock.cidr", "10.0.0.0/16",
                "networkPolicy.apiServer.cidrs[0]", "10.0.0.10/32",
                "networkPolicy.apiServer.cidrs[1]", "fd00::10/128",
                "networkPolicy.apiServer.ports[0]", 6443,
                "networkPolicy.dnsTo[0].podSelector.matchLabels.k8s-app", "kube-dns")));

        List<NetworkPolicyIngressRule> ingress = policy.getSpec().getIngress();
        assertThat(ingress).hasSize(3);
        assertThat(ports(ingress.get(0).getPorts())).containsExactly("TCP/8443");
        assertThat(ingress.get(0).getFrom()).singleElement()
                .satisfies(p -> assertThat(p.getIpBlock().getCidr()).isEqualTo("10.0.0.0/24"));
        assertThat(ports(ingress.get(1).getPorts())).containsExactly("TCP/8081");
        assertThat(ingress.get(1).getFrom()).singleElement()
                .satisfies(p -> assertThat(p.getIpBlock().getCidr()).isEqualTo("10.0.0.0/16"));
        assertThat(ports(ingress.get(2).getPorts())).as("metrics share the webhook's listener")
                .containsExactly("TCP/8443");
        assertThat(ingress.get(2).getFrom()).singleElement().satisfies(p -> assertThat(
                p.getNamespaceSelector().getMatchLabels()).isEqualTo(Map.of("team", "monitoring")));

        List<NetworkPolicyEgressRule> egress = policy.getSpec().getEgress();
        assertThat(ports(egress.get(0).getPorts())).containsExactly("TCP/6443");
        assertThat(egress.get(0).getTo()).extracting(p -> p.getIpBlock().getCidr())
                .containsExactly("10.0.0.10/32", "fd00::10/128");
        assertThat(egress.get(1).getTo()).singleElement().satisfies(p -> assertThat(
                p.getPodSelector().getMatchLabels()).isEqualTo(Map.of("k8s-app", "kube-dns")));
    }

    @Test
    void aMalformedPeerCidrOrPortIsRefusedWithTheValueNamed() {
        assertThatThrownBy(() -> render(values("networkPolicy.webhookFrom[0].ipBlocks.cidr", "10.0.0.0/24")))
                .hasMessageContaining("webhookFrom");
        assertThatThrownBy(() -> render(values("networkPolicy.apiServer.cidrs[0]", "10.0.0.1")))
                .hasMessageContaining("apiServer/cidrs");
        assertThatThrownBy(() -> render(values("networkPolicy.apiServer.ports[0]", 70000)))
                .hasMessageContaining("apiServer/ports");
    }

    @Test
    void aDigestPinsTheImageAndReplacesTheTag() {
        assertThat(image(render())).isEqualTo("kvcache-injector:0.1.0");
        assertThat(image(render(values("image.repository", "registry.example/kvi", "image.tag", "1.2.3",
                "image.digest", DIGEST)))).isEqualTo("registry.example/kvi@" + DIGEST);
        assertThatThrownBy(() -> render(values("image.digest", "0123abcd"))).hasMessageContaining("/image/digest");
    }

    @Test
    void theHardenedExampleRendersThePolicyAndThePinnedImage() {
        Path values = RenderedChart.repoRoot().resolve("docs/examples/hardened-values.yaml");
        RenderedChart chart = RenderedChart.parse(new Helm(RenderedChart.chartDir()).template()
                .withName(RenderedChart.RELEASE).withNamespace(NAMESPACE).withKubeVersion(RenderedChart.KUBE_VERSION)
                .withValuesFile(values).call());
        assertThat(policy(chart).getSpec().getIngress()).hasSize(3);
        assertThat(image(chart)).contains("@sha256:");
    }

    private static NetworkPolicy policy(RenderedChart chart) {
        return chart.one(NetworkPolicy.class, "NetworkPolicy");
    }

    private static String image(RenderedChart chart) {
        return chart.one(Deployment.class, "Deployment").getSpec().getTemplate().getSpec().getContainers().get(0)
                .getImage();
    }

    private static List<String> ports(List<NetworkPolicyPort> ports) {
        return ports.stream().map(p -> p.getProtocol() + "/" + p.getPort().getIntVal()).toList();
    }
}
