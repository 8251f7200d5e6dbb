package io.kvcacheinjector.domain.cacheblend;

import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.json.Json;
import io.kvcacheinjector.domain.pod.Pod;
import io.kvcacheinjector.domain.pod.PodReader;
import io.kvcacheinjector.domain.pod.PodReading;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Test fixtures: a vLLM-like grammar over a small catalogue, Pods from JSON text, and engines. */
final class Fixtures {
    private Fixtures() {
    }

    /**
     * vLLM's reduction of a token (docs/reference/flag-grammar.md) over the options these tests need: {@code --} only, cut
     * at {@code =}, {@code _} to {@code -} before the first {@code .}, cut at that {@code .}.
     */
    static final FlagGrammar VLLM_LIKE = new FlagGrammar() {
        @Override
        public String engineName() {
            return "vLLM";
        }

        @Override
        public Optional<String> name(String token) {
            if (!token.startsWith("--")) {
                return Optional.empty();
            }
            int eq = token.indexOf('=');
            String flag = eq < 0 ? token : token.substring(0, eq);
            int dot = flag.indexOf('.');
            String name = "--" + (dot < 0 ? flag.substring(2) : flag.substring(2, dot)).replace('_', '-');
            return name.equals("--") ? Optional.empty() : Optional.of(name);
        }

        @Override
        public Set<String> catalogue() {
            return Set.of("--model", "--max-model-len", "--port", "--block-size", "--mamba-block-size",
                    "--pipeline-parallel-size", "--enable-chunked-prefill", "--no-enable-chunked-prefill",
                    "--async-scheduling", "--no-async-scheduling", "--enforce-eager", "--no-enforce-eager",
                    "--compilation-config", "--attention-backend", "--attention-config", "--kv-transfer-config",
                    "--kv-events-config", "--config", "--config-format", "--enable-prefix-caching");
        }
    };

    static Pod pod(String json) {
        Object tree = Json.parse(json).orElseThrow(() -> new IllegalArgumentException("bad test JSON: " + json));
        return switch (PodReader.read(tree)) {
            case PodReading.Read r -> r.pod();
            case PodReading.Unreadable u -> throw new IllegalArgumentException(u.problem());
        };
    }

    /** A one-container Pod whose container has these args (JSON array text, e.g. {@code ["m"]}). */
    static Pod podWithArgs(String argsJson) {
        return pod("{\"metadata\":{\"name\":\"p\",\"annotations\":{}},\"spec\":{\"containers\":[{\"name\":\"vllm\","
                + "\"args\":" + argsJson + "}]}}");
    }

    static CacheBlendEngine engine() {
        return engine(Optional.empty(), "eager", false, List.of("cacheblend-plugin-pull"));
    }

    static CacheBlendEngine engine(Optional<Boolean> hostIpc, String cudagraph, boolean pd, List<String> secrets) {
        return new CacheBlendEngine("team-a", "cb", Optional.of("tensormesh/cacheblend-plugin"), "v0.5.3",
                "IfNotPresent", secrets, Optional.empty(), cudagraph, hostIpc, pd, 5558);
    }

    static final String CONNECTION_JSON = "{\n  \"kv_connector\": \"CBKVConnector\",\n  \"kv_role\": \"kv_both\"\n}";

    static ConnectionConfig connection() {
        return new ConnectionConfig(CONNECTION_JSON, "CBKVConnector");
    }
}
