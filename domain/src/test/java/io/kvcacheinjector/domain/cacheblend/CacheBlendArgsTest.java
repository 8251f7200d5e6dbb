package io.kvcacheinjector.domain.cacheblend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.flags.FlagHit;
import io.kvcacheinjector.domain.pod.Container;
import java.util.List;
import org.junit.jupiter.api.Test;

class CacheBlendArgsTest {
    private static final String KV = Fixtures.CONNECTION_JSON;
    private static final List<String> UPSTREAM_EAGER = List.of("--attention-backend", "CUSTOM", "--kv-transfer-config",
            KV, "--no-enable-chunked-prefill", "--block-size", "64", "--pipeline-parallel-size", "1",
            "--no-async-scheduling", "--enforce-eager");

    private static CacheBlendArgs.Plan plan(String argsJson, CudagraphMode mode) {
        Container c = Fixtures.podWithArgs(argsJson).containers().get(0);
        return CacheBlendArgs.plan(Fixtures.VLLM_LIKE, c, mode, KV);
    }

    private static List<String> written(CacheBlendArgs.Plan p) {
        return p.overridden().stream().map(FlagHit::written).toList();
    }

    @Test
    void aPlainContainerGetsTheUpstreamFlagsInUpstreamOrder() {
        CacheBlendArgs.Plan p = plan("[\"Qwen/Qwen3-8B\"]", CudagraphMode.EAGER);
        assertThat(p.appended()).containsExactlyElementsOf(UPSTREAM_EAGER);
        assertThat(p.overridden()).isEmpty();
    }

    @Test
    void theCudagraphModeChoosesTheLastFlag() {
        assertThat(plan("[]", CudagraphMode.PIECEWISE).appended()).containsExactlyElementsOf(UPSTREAM_EAGER.subList(0, 10));
        assertThat(plan("[]", CudagraphMode.FULL_DECODE_ONLY).appended()).endsWith("--no-async-scheduling",
                "--compilation-config", "{\"cudagraph_mode\":\"FULL_DECODE_ONLY\"}");
        assertThat(CudagraphMode.of("full_decode_only")).isEqualTo(CudagraphMode.FULL_DECODE_ONLY);
        assertThat(CudagraphMode.of("piecewise")).isEqualTo(CudagraphMode.PIECEWISE);
        assertThat(CudagraphMode.of("FULL")).as("unknown values fall back to eager, as upstream").isEqualTo(CudagraphMode.EAGER);
    }

    @Test
    void otherValuesOfTheInjectedFlagsAreOverriddenInEverySpellingAndNamed() {
        CacheBlendArgs.Plan p = plan("[\"m\", \"--block_size=16\", \"--pipeline\", \"2\", \"--enable-chunked-prefill\","
                + " \"--async-scheduling\", \"--no-enforce-eager\", \"--attention-backend\", \"FLASH_ATTN\"]",
                CudagraphMode.EAGER);
        assertThat(p.appended()).containsExactlyElementsOf(UPSTREAM_EAGER);
        assertThat(written(p)).containsExactly("--block_size", "--pipeline", "--enable-chunked-prefill",
                "--async-scheduling", "--no-enforce-eager", "--attention-backend");
    }

    @Test
    void theContainersOwnValuesAreNotNamedAndItsBareFlagsAreNotRepeated() {
        CacheBlendArgs.Plan p = plan("[\"m\", \"--block-size\", \"64\", \"--pipeline-parallel-size=1\", \"-pp\", \"1\","
                + " \"--no-enable-chunked-prefill\", \"--no_async_scheduling\", \"--enforce-eager\","
                + " \"--attention-backend=CUSTOM\"]", CudagraphMode.EAGER);
        assertThat(p.overridden()).isEmpty();
        assertThat(p.appended()).containsExactly("--attention-backend", "CUSTOM", "--kv-transfer-config", KV,
                "--block-size", "64", "--pipeline-parallel-size", "1");
    }

    @Test
    void aBareFlagIsAppendedAfterTheOppositeEvenWhenTheContainerAlsoHasOurs() {
        CacheBlendArgs.Plan p = plan("[\"--enforce-eager\", \"--no-enforce-eager\"]", CudagraphMode.EAGER);
        assertThat(p.appended()).endsWith("--enforce-eager");
        assertThat(written(p)).containsExactly("--no-enforce-eager");
    }

    @Test
    void shortOptionsAreSpellingsToo() {
        CacheBlendArgs.Plan p = plan("[\"-pp\", \"4\", \"-cc.cudagraph_mode=FULL\"]", CudagraphMode.FULL_DECODE_ONLY);
        assertThat(written(p)).containsExactly("-pp", "-cc.cudagraph_mode");
        assertThat(p.overridden().get(0).flag()).isEqualTo("--pipeline-parallel-size");
        assertThat(p.overridden().get(0).describe("vLLM")).contains("which vLLM reads as --pipeline-parallel-size");
    }

    @Test
    void anAttentionConfigCountsOnlyWhereItSetsTheBackend() {
        assertThat(written(plan("[\"--attention-config.backend\", \"FLASHINFER\"]", CudagraphMode.EAGER)))
                .containsExactly("--attention-config.backend");
        assertThat(written(plan("[\"-ac.backend=TRITON_ATTN\"]", CudagraphMode.EAGER))).containsExactly("-ac.backend");
        assertThat(written(plan("[\"--attention-config\", \"{\\\"backend\\\": \\\"FLASHINFER\\\"}\"]", CudagraphMode.EAGER)))
                .containsExactly("--attention-config");
        assertThat(written(plan("[\"--attention-config={\\\"use_cudnn_prefill\\\": true}\"]", CudagraphMode.EAGER)))
                .isEmpty();
        assertThat(written(plan("[\"--attention-config.use_cudnn_prefill=true\"]", CudagraphMode.EAGER))).isEmpty();
        assertThat(written(plan("[\"--attention-config\", \"not-json\"]", CudagraphMode.EAGER)))
                .as("a value admission cannot read is counted").containsExactly("--attention-config");
    }

    @Test
    void exactNeighbourOptionsAreNotSpellingsOfTheInjectedFlags() {
        CacheBlendArgs.Plan p = plan("[\"--mamba-block-size\", \"16\", \"--enable-prefix-caching\", \"--config-format\","
                + " \"auto\"]", CudagraphMode.EAGER);
        assertThat(p.overridden()).isEmpty();
    }

    @Test
    void tokensInCommandAreFoundAndNamedInArgvOrder() {
        Container c = Fixtures.pod("{\"spec\":{\"containers\":[{\"name\":\"vllm\",\"command\":[\"vllm\",\"serve\","
                + "\"--block-size\",\"32\"],\"args\":[\"--async-scheduling\"]}]}}").containers().get(0);
        CacheBlendArgs.Plan p = CacheBlendArgs.plan(Fixtures.VLLM_LIKE, c, CudagraphMode.EAGER, KV);
        assertThat(p.overridden()).extracting(FlagHit::written, FlagHit::inCommand)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("--block-size", true),
                        org.assertj.core.groups.Tuple.tuple("--async-scheduling", false));
    }
}
