package io.kvcacheinjector.adapters.k8s.chart;

import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.render;
import static io.kvcacheinjector.adapters.k8s.chart.RenderedChart.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code extraEngines}: engine plugins added without a new webhook image (docs/reference/chart-values.md, "Engine
 * plugins"), rendered and linted by a real Helm.
 */
class ExtraEnginesValuesTest {
    private static final Map<String, Object> ONE_EXTRA = values(
            "extraEngines[0].name", "example",
            "extraEngines[0].image", "registry.example/engines/example:1.0.0",
            "extraEngines[0].path", "/engines/example/");

    @Test
    void withoutExtraEnginesTheServerLoadsTheBuiltInEnginesOfTheImageOnly() {
        PodSpec pod = pod(render());
        assertThat(pod.getInitContainers()).isNullOrEmpty();
        assertThat(pod.getVolumes()).noneMatch(v -> v.getName().equals("engines-extra"));
        assertThat(pod.getContainers().get(0).getArgs()).doesNotContain("--engines-dir");
    }

    @Test
    void anExtraEngineIsCopiedByAnInitContainerIntoAVolumeTheServerLoadsBesideTheBuiltIns() {
        PodSpec pod = pod(render(ONE_EXTRA));

        Container copy = pod.getInitContainers().get(0);
        assertThat(pod.getInitContainers()).hasSize(1);
        assertThat(copy.getName()).isEqualTo("engine-example");
        assertThat(copy.getImage()).isEqualTo("registry.example/engines/example:1.0.0");
        assertThat(copy.getCommand()).containsExactly("cp", "-R", "/engines/example/.", "/engines-extra/example");
        assertThat(copy.getVolumeMounts()).singleElement().satisfies(m -> {
            assertThat(m.getName()).isEqualTo("engines-extra");
            assertThat(m.getMountPath()).isEqualTo("/engines-extra");
        });
        assertThat(copy.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(copy.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(copy.getResources().getLimits()).containsKeys("cpu", "memory");

        assertThat(pod.getVolumes()).anySatisfy(v -> {
            assertThat(v.getName()).isEqualTo("engines-extra");
            assertThat(v.getEmptyDir()).isNotNull();
        });
        Container webhook = pod.getContainers().get(0);
        assertThat(webhook.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(webhook.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getName()).isEqualTo("engines-extra");
            assertThat(m.getMountPath()).isEqualTo("/app/engines-extra");
            assertThat(m.getReadOnly()).isTrue();
        });
        assertThat(webhook.getArgs()).containsSubsequence("--engines-dir", "/app/engines,/app/engines-extra");
    }

    @Test
    void severalExtraEnginesGetOneInitContainerEachInOrder() {
        Map<String, Object> two = values(
                "extraEngines[0].name", "example", "extraEngines[0].image", "reg/a:1", "extraEngines[0].path", "/a",
                "extraEngines[1].name", "other", "extraEngines[1].image", "reg/b:2", "extraEngines[1].path", "/b",
                "extraEngines[1].imagePullPolicy", "Always");
        PodSpec pod = pod(render(two));
        assertThat(pod.getInitContainers()).extracting(Container::getName).containsExactly("engine-example", "engine-other");
        assertThat(pod.getInitContainers().get(1).getImagePullPolicy()).isEqualTo("Always");
        assertThat(pod.getInitContainers().get(0).getImagePullPolicy()).isEqualTo("IfNotPresent");
    }

    @Test
    void aBuiltInIdABadIdARelativePathOrAnUnknownKeyIsRefusedWithTheValueNamed() {
        assertThatThrownBy(() -> render(values("extraEngines[0].name", "vllm", "extraEngines[0].image", "reg/a:1",
                "extraEngines[0].path", "/a")))
                .hasMessageContaining("extraEngines[0].name \"vllm\" is a built-in engine");
        assertThatThrownBy(() -> render(values("extraEngines[0].name", "My_Engine", "extraEngines[0].image", "reg/a:1",
                "extraEngines[0].path", "/a")))
                .hasMessageContaining("extraEngines").hasMessageContaining("name");
        assertThatThrownBy(() -> render(values("extraEngines[0].name", "example", "extraEngines[0].image", "reg/a:1",
                "extraEngines[0].path", "engines/example")))
                .hasMessageContaining("extraEngines").hasMessageContaining("path");
        assertThatThrownBy(() -> render(values("extraEngines[0].name", "example", "extraEngines[0].image", "reg/a:1",
                "extraEngines[0].path", "/a", "extraEngines[0].jar", "x.jar")))
                .hasMessageContaining("extraEngines").hasMessageContaining("jar");
    }

    private static PodSpec pod(RenderedChart chart) {
        return chart.one(Deployment.class, "Deployment").getSpec().getTemplate().getSpec();
    }
}
