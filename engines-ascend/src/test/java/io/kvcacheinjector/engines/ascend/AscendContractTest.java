package io.kvcacheinjector.engines.ascend;

import io.kvcacheinjector.ports.testing.EngineContractTest;

/** The kvcache golden suite (src/test/resources/testdata/vllm-ascend/) run against the vllm-ascend engine. */
class AscendContractTest extends EngineContractTest {
    @Override
    protected String engineId() {
        return "vllm-ascend";
    }
}
