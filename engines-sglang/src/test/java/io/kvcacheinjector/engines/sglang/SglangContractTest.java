package io.kvcacheinjector.engines.sglang;

import io.kvcacheinjector.ports.testing.EngineContractTest;

/** The kvcache golden suite (src/test/resources/testdata/sglang/) run against the sglang engine. */
class SglangContractTest extends EngineContractTest {
    @Override
    protected String engineId() {
        return "sglang";
    }
}
