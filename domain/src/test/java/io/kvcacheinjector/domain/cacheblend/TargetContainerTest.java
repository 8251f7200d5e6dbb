package io.kvcacheinjector.domain.cacheblend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.pod.Pod;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TargetContainerTest {
    private static final String TWO = "{\"metadata\":{\"annotations\":%s},\"spec\":{\"initContainers\":[{\"name\":\"fetch\"}],"
            + "\"containers\":[{\"name\":\"istio-proxy\"},{\"name\":\"vllm\"}]}}";

    private static CacheBlendEngine engineTargeting(String name) {
        CacheBlendEngine e = Fixtures.engine();
        return new CacheBlendEngine(e.namespace(), e.name(), e.payloadRepository(), e.payloadTag(), e.payloadPullPolicy(),
                e.imagePullSecrets(), Optional.ofNullable(name), e.cudagraph(), e.hostIPC(), e.pd(),
                e.nixlSideChannelPort());
    }

    @Test
    void theAnnotationWinsOverTheEngineAndTheEngineOverTheOnlyContainer() {
        Pod pod = Fixtures.pod(TWO.formatted("{\"lmcache.ai/cacheblend-container\":\"vllm\"}"));
        TargetContainer.Selected s = (TargetContainer.Selected) TargetContainer.select(pod, engineTargeting("istio-proxy"));
        assertThat(s.container().name()).isEqualTo("vllm");
        assertThat(s.container().index()).isEqualTo(1);
        assertThat(s.source()).isEqualTo(TargetContainer.Source.ANNOTATION);

        s = (TargetContainer.Selected) TargetContainer.select(Fixtures.pod(TWO.formatted("{}")), engineTargeting("vllm"));
        assertThat(s.source()).isEqualTo(TargetContainer.Source.ENGINE);

        Pod one = Fixtures.pod("{\"spec\":{\"containers\":[{\"name\":\"server\"}]}}");
        s = (TargetContainer.Selected) TargetContainer.select(one, engineTargeting(null));
        assertThat(s.container().name()).isEqualTo("server");
    }

    @Test
    void aBlankAnnotationCountsAsAbsent() {
        Pod pod = Fixtures.pod(TWO.formatted("{\"lmcache.ai/cacheblend-container\":\" \"}"));
        assertThat(TargetContainer.select(pod, engineTargeting("vllm"))).isInstanceOf(TargetContainer.Selected.class);
    }

    @Test
    void theFirstOfSeveralContainersIsNeverGuessed() {
        TargetContainer.NotFound n = (TargetContainer.NotFound) TargetContainer.select(
                Fixtures.pod(TWO.formatted("{}")), engineTargeting(null));
        assertThat(n.problem()).contains("2 containers").contains("\"istio-proxy\", \"vllm\"")
                .contains("lmcache.ai/cacheblend-container").contains("never chosen");
    }

    @Test
    void aMissingNameSaysWhereItCameFromAndListsTheContainers() {
        TargetContainer.NotFound n = (TargetContainer.NotFound) TargetContainer.select(
                Fixtures.pod(TWO.formatted("{}")), engineTargeting("server"));
        assertThat(n.problem()).contains("\"server\"").contains("spec.injection.targetContainer")
                .contains("\"istio-proxy\", \"vllm\"");
        n = (TargetContainer.NotFound) TargetContainer.select(
                Fixtures.pod(TWO.formatted("{\"lmcache.ai/cacheblend-container\":\"fetch\"}")), engineTargeting(null));
        assertThat(n.problem()).contains("\"fetch\"").contains("annotation lmcache.ai/cacheblend-container")
                .contains("init container");
    }

    @Test
    void aPodWithoutContainersHasNoTarget() {
        assertThat(TargetContainer.select(Fixtures.pod("{\"spec\":{}}"), engineTargeting(null)))
                .isEqualTo(new TargetContainer.NotFound("the Pod has no containers", "the Pod has no containers"));
    }
}
