package io.kvcacheinjector.app.properties;

import io.kvcacheinjector.app.properties.PodParts.Layout;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Generated Pods for the CacheBlend contract. Two in three are <em>well-formed</em>: labelled, naming an engine in
 * every accepted spelling (bare, {@code ns/name}, {@code /name}, padded), an optional PD role and pull-secret list,
 * the target launched through the image ENTRYPOINT (args only) or by a command line that reaches vLLM, with flags
 * the injection overrides, {@code PYTHONPATH} literal, empty or {@code valueFrom}, {@code VLLM_PLUGINS}, an emptyDir at
 * {@code /dev/shm}, existing pull secrets, {@code hostIPC} set or not. The rest are <em>awkward</em>: the label not
 * exactly "true" or both contracts' labels, an excluded namespace, a missing, blank, malformed, unknown or forbidden
 * engine reference, an invalid PD role, an already stamped Pod, a stale skip reason, an unknown or init target, a
 * shell, script or the other engine's launch, a {@code --kv-transfer-config} in any vLLM spelling, and volumes,
 * mounts and init containers already named as the injection names its own.
 */
final class CacheBlendPods {
    static final String PREFIX = "lmcache.ai/";
    static final String LABEL = PREFIX + "cacheblend-inject";
    static final String ENGINE = PREFIX + "cacheblend-engine";
    static final String CONTAINER = PREFIX + "cacheblend-container";
    static final String PULL_SECRETS = PREFIX + "cacheblend-image-pull-secrets";
    static final String PD_ROLE = PREFIX + "pd-role";
    static final String INJECTED = PREFIX + "cacheblend-injected";
    static final String SKIP_REASON = PREFIX + "cacheblend-skip-reason";

    private static final List<List<String>> VLLM_COMMANDS = List.of(
            List.of("vllm", "serve", "Qwen/Qwen3-8B"),
            List.of("/usr/bin/tini", "--", "vllm", "serve", "m"),
            List.of("env", "-i", "vllm", "serve"),
            List.of("dumb-init", "vllm", "serve"));
    private static final List<List<String>> UNPROVEN = List.of(
            List.of("sh", "-c", "vllm serve m"),
            List.of("bash", "-lc", "exec vllm serve"),
            List.of("python", "-m", "vllm.entrypoints.openai.api_server"),
            List.of("/app/start.sh"),
            List.of("env", "-S", "vllm serve --model m"),
            List.of("tini", "--"),
            List.of("python3", "-m", "sglang.launch_server"));
    private static final List<List<String>> ENTRYPOINT_ARGS = List.of(
            List.of("Qwen/Qwen3-8B"), List.of("Qwen/Qwen3-8B", "--port", "8000"), List.of("--model", "m"), List.of());
    private static final List<String> FLAGS = List.of("--max-model-len", "8192", "--enable-prefix-caching", "--config",
            "/etc/vllm/cfg.yaml", "--block-size", "16", "--block_size=32", "--attention-backend", "FLASHINFER",
            "--attention-config.backend=TRITON_ATTN", "--enforce-eager", "--compilation-config", "{\"level\":3}",
            "--no-enable-chunked-prefill", "--async-scheduling", "--pipeline-parallel-size=2", "-tp", "2");
    private static final List<String> KV_FLAGS = List.of("--kv-transfer-config", "{\"kv_connector\":\"X\"}",
            "--kv_transfer_config={}", "--kv-transfer-config.kv_connector=X", "--kv-t", "--kv-transfer-config=");

    private CacheBlendPods() {
    }

    static Arbitrary<GeneratedPod> pods() {
        return Arbitraries.frequencyOf(Tuple.of(65, pods(true)), Tuple.of(35, pods(false)));
    }

    private static <T> Arbitrary<T> varied(boolean wellFormed, Arbitrary<T> valid, int percent, Arbitrary<T> awkward) {
        return wellFormed ? valid : Arbitraries.frequencyOf(Tuple.of(100 - percent, valid), Tuple.of(percent, awkward));
    }

    private static Arbitrary<GeneratedPod> pods(boolean wellFormed) {
        Arbitrary<PodParts.Meta> meta = Combinators.combine(
                varied(wellFormed, Arbitraries.just("team-a"), 30,
                        Arbitraries.of("team-b", "ops", "lmcache-shared", "kube-system", "kube-public", "gpustack-system")),
                Arbitraries.frequency(Tuple.of(55, "same"), Tuple.of(40, "absent"), Tuple.of(5, "empty")),
                Arbitraries.frequency(Tuple.of(70, "name"), Tuple.of(20, "generateName"), Tuple.of(5, "none"), Tuple.of(5, "odd")),
                labels(wellFormed), annotations(wellFormed),
                varied(wellFormed, Arbitraries.of("as a user would", "always"), 25,
                        Arbitraries.of("empty", "unknown name", "init container", "never")),
                varied(wellFormed, Arbitraries.just(false), 10, Arbitraries.just(true)))
                .as(PodParts.Meta::new);
        Arbitrary<PodParts.SpecParts> spec = Combinators.combine(
                container(targetLaunch(wellFormed), wellFormed), container(sidecarLaunch(), false).list().ofMaxSize(3),
                varied(wellFormed, Arbitraries.just(1), 20, Arbitraries.of(0, 2)),
                Arbitraries.integers().between(0, 3),
                varied(wellFormed, Arbitraries.of("init", "download-model"), 30, Arbitraries.just("cb-plugin-stage"))
                        .list().ofMaxSize(2).injectNull(0.6),
                PodParts.volumes(varied(wellFormed, Arbitraries.of("cache", "models", "shm"), 20,
                        Arbitraries.of("cb-plugin", "lmcache-dev-shm"))),
                Arbitraries.of(Boolean.TRUE, Boolean.FALSE).injectNull(0.6), podExtras())
                .as(PodParts.SpecParts::new);
        return Combinators.combine(meta, spec).as((m, s) -> PodParts.assemble(m, s, CONTAINER));
    }

    private static Arbitrary<Map<String, Object>> labels(boolean wellFormed) {
        Arbitrary<String> inject = varied(wellFormed, Arbitraries.just("true"), 35,
                Arbitraries.of("True", "yes", "", "true ", "TRUE").injectNull(0.2));
        Arbitrary<String> kvcache = varied(wellFormed, Arbitraries.of((String) null, "false"), 15, Arbitraries.just("true"));
        return Combinators.combine(inject, kvcache).as((i, k) -> {
            Map<String, Object> labels = new LinkedHashMap<>();
            labels.put("app", "chat");
            PodParts.put(labels, LABEL, i, false);
            PodParts.put(labels, KvCachePods.LABEL, k, false);
            return labels;
        });
    }

    private static Arbitrary<Map<String, Object>> annotations(boolean wellFormed) {
        Arbitrary<String> engine = varied(wellFormed, Arbitraries.frequency(Tuple.of(40, "cb"), Tuple.of(10, "team-a/cb"),
                        Tuple.of(5, " cb "), Tuple.of(5, "/cb"), Tuple.of(20, "pd-cb"), Tuple.of(12, "lmcache-shared/shared-cb"),
                        Tuple.of(8, "ops/private-cb")), 35,
                Arbitraries.of("", " ", "a/b/c", "Bad_Name", "missing-cb", "team-b/cb", "ops/", "cb\n", "team_a/cb").injectNull(0.1));
        Arbitrary<String> secrets = varied(wellFormed, Arbitraries.frequency(Tuple.of(80, (String) null),
                Tuple.of(10, "regcred"), Tuple.of(10, " a , b,,a ")), 20, Arbitraries.of(" ", ","));
        Arbitrary<String> role = varied(wellFormed, Arbitraries.frequency(Tuple.of(70, (String) null),
                Tuple.of(15, "prefiller"), Tuple.of(15, "decoder")), 25, Arbitraries.of("Prefiller", "both", ""));
        Arbitrary<String> injected = varied(wellFormed, Arbitraries.frequency(Tuple.of(95, (String) null), Tuple.of(5, "false")),
                30, Arbitraries.just("true"));
        Arbitrary<String> staleSkip = Arbitraries.frequency(Tuple.of(90, (String) null), Tuple.of(10, "engine-not-found"));
        Arbitrary<Map<String, String>> foreign = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.just(Map.<String, String>of())),
                Tuple.of(3, PodParts.text().map(t -> Map.of("example.com/a~b/c", t, "note", "ü\u0001\n"))),
                Tuple.of(1, Arbitraries.just(Map.of(KvCachePods.PREFIX + "binding", "chat"))));
        Arbitrary<String> mapForm = varied(wellFormed, Arbitraries.just("map"), 10, Arbitraries.of("no map", "empty map"));
        return Combinators.combine(engine, secrets, role, injected, staleSkip, foreign, mapForm)
                .as((e, s, r, i, k, x, form) -> {
                    if (form.equals("no map")) {
                        return null;
                    }
                    Map<String, Object> a = new LinkedHashMap<>();
                    if (form.equals("empty map")) {
                        return a;
                    }
                    a.putAll(x);
                    PodParts.put(a, ENGINE, e, false);
                    PodParts.put(a, PULL_SECRETS, s, false);
                    PodParts.put(a, PD_ROLE, r, false);
                    PodParts.put(a, INJECTED, i, false);
                    PodParts.put(a, SKIP_REASON, k, false);
                    return a;
                });
    }

    private static Arbitrary<Map<String, Object>> targetLaunch(boolean wellFormed) {
        Arbitrary<List<String>> argv = varied(wellFormed, Arbitraries.of(VLLM_COMMANDS), 40, Arbitraries.of(UNPROVEN));
        Arbitrary<Layout> layout = Arbitraries.frequency(Tuple.of(45, Layout.ARGS_ONLY), Tuple.of(30, Layout.SPLIT),
                Tuple.of(15, Layout.COMMAND_ONLY), Tuple.of(5, Layout.EMPTY_ARGS), Tuple.of(5, Layout.NEITHER));
        Arbitrary<String> tokens = varied(wellFormed, Arbitraries.of(FLAGS), 20, Arbitraries.of(KV_FLAGS));
        return PodParts.launch(argv, Arbitraries.of(ENTRYPOINT_ARGS), layout, PodParts.flags(tokens));
    }

    private static Arbitrary<Map<String, Object>> sidecarLaunch() {
        Arbitrary<List<String>> argv = Arbitraries.of(List.of("envoy", "-c", "/etc/envoy.yaml"), List.of("fluent-bit"),
                List.of("vllm", "serve"));
        return PodParts.launch(argv, Arbitraries.just(List.of("--log-level", "info")), Arbitraries.of(Layout.values()),
                PodParts.flags(Arbitraries.of(KV_FLAGS)));
    }

    private static Arbitrary<Map<String, Object>> container(Arbitrary<Map<String, Object>> launch, boolean wellFormed) {
        Arbitrary<String> envNames = Arbitraries.of("PYTHONPATH", "VLLM_PLUGINS", "VLLM_NIXL_SIDE_CHANNEL_HOST",
                "VLLM_NIXL_SIDE_CHANNEL_PORT", "HF_HOME", "É_VAR", "LMCACHE_LOG_LEVEL");
        Arbitrary<String> mountNames = varied(wellFormed, Arbitraries.of("cache", "models", "shm"), 20,
                Arbitraries.of("cb-plugin", "lmcache-dev-shm"));
        Arbitrary<String> mountPaths = varied(wellFormed, Arbitraries.of("/cache", "/models", "/dev/shm", "/dev/shm/"), 15,
                Arbitraries.of("/cb-plugin", "/cb-plugin/sub"));
        return Combinators.combine(PodParts.containerName(), launch, PodParts.env(envNames), PodParts.envFrom(),
                        PodParts.mounts(mountNames, mountPaths), PodParts.unreadContainerFields())
                .as((name, l, env, envFrom, mounts, unread) -> {
                    Map<String, Object> c = new LinkedHashMap<>();
                    c.put("name", name);
                    c.put("image", "lmcache/vllm-openai:v0.5.3");
                    c.putAll(l);
                    PodParts.put(c, "env", env, false);
                    PodParts.put(c, "envFrom", envFrom, false);
                    PodParts.put(c, "volumeMounts", mounts, false);
                    c.putAll(unread);
                    return c;
                });
    }

    private static Arbitrary<Map<String, Object>> podExtras() {
        return Arbitraries.of(
                Map.<String, Object>of(),
                Map.<String, Object>of("imagePullSecrets", List.of(Map.of("name", "registry"))),
                Map.<String, Object>of("imagePullSecrets", List.of(Map.of("name", "tm-pull"), Map.of("name", "regcred"))),
                Map.<String, Object>of("restartPolicy", "Always", "serviceAccountName", "default"),
                Map.<String, Object>of("nodeSelector", Map.of("nvidia.com/gpu.present", "true")));
    }
}
