package io.kvcacheinjector.adapters.k8s.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes range the chart claims is the range CI proves: {@code kubeVersion} in Chart.yaml spans exactly the
 * oldest to the newest line of tools/e2e/versions.txt (the versions the e2e suite runs against), and a real Helm
 * refuses, with its own message, a cluster on either side of it.
 */
class ChartKubeVersionTest {
    private static final Pattern VERSION = Pattern.compile("v1\\.(\\d+)\\.(\\d+)");

    @Test
    void kubeVersionSpansExactlyTheVersionsTheE2eSuiteRuns() throws IOException {
        Map<String, Integer> minors = testedMinors();
        assertThat(minors).as("tools/e2e/versions.txt roles").containsKeys("oldest", "newest");
        assertThat(chartKubeVersion()).as("kubeVersion in deploy/helm/kvcache-injector/Chart.yaml")
                .isEqualTo(">=1.%d.0-0 <1.%d.0-0", minors.get("oldest"), minors.get("newest") + 1);
    }

    @Test
    void everyTestedVersionRendersAndHelmRefusesAClusterOutsideTheRangeWithItsOwnMessage() throws IOException {
        Map<String, Integer> minors = testedMinors();
        for (String version : testedVersions()) {
            assertThat(template(version)).as("helm template --kube-version %s", version).contains("kind: Deployment");
        }
        String range = chartKubeVersion();
        for (String outside : List.of("1." + (minors.get("oldest") - 1) + ".15", "1." + (minors.get("newest") + 1) + ".0")) {
            assertThatThrownBy(() -> template(outside)).as("helm template --kube-version %s", outside)
                    .hasMessageContaining("chart requires kubeVersion: " + range
                            + " which is incompatible with Kubernetes v" + outside);
        }
        // a managed cluster's version string is a semver pre-release (v1.30.14-eks-1234): inside the range
        assertThat(template("1." + minors.get("oldest") + ".6-eks-abc123")).contains("kind: Deployment");
    }

    private static String template(String kubeVersion) {
        RenderedChart.apiServer();
        return new Helm(RenderedChart.chartDir()).template().withName(RenderedChart.RELEASE)
                .withNamespace(RenderedChart.NAMESPACE).withKubeVersion(kubeVersion).call();
    }

    private static String chartKubeVersion() throws IOException {
        return Files.readAllLines(RenderedChart.chartDir().resolve("Chart.yaml")).stream()
                .filter(l -> l.startsWith("kubeVersion:")).map(l -> l.substring("kubeVersion:".length()).strip())
                .map(v -> v.replaceAll("^\"|\"$", "")).findFirst().orElseThrow();
    }

    private static List<String> testedVersions() throws IOException {
        return lines().stream().map(l -> l.split("\\s+")[0]).toList();
    }

    private static Map<String, Integer> testedMinors() throws IOException {
        return lines().stream().map(l -> l.split("\\s+")).collect(Collectors.toMap(f -> f[1], f -> minor(f[0])));
    }

    private static int minor(String version) {
        Matcher m = VERSION.matcher(version);
        assertThat(m.matches()).as("a version in tools/e2e/versions.txt: %s", version).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private static List<String> lines() throws IOException {
        Path file = RenderedChart.repoRoot().resolve("tools/e2e/versions.txt");
        return Files.readAllLines(file).stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .toList();
    }
}
