package io.kvcacheinjector.engines.vllm;

import io.kvcacheinjector.ports.testing.EngineContractTest;

/** The kvcache golden suite (src/test/resources/testdata/vllm/) run against the vllm engine. */
class VllmContractTest extends EngineContractTest {
    @Override
    protected String engineId() {
        return "vllm";
    }
}
