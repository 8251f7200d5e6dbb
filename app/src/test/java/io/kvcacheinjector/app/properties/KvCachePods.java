package io.kvcacheinjector.app.properties;

import io.kvcacheinjector.app.properties.PodParts.Layout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Generated Pods for the kvcache contract. Each Pod is drawn around an intended runtime (vLLM, vLLM-Ascend, SGLang).
 * About two in three are <em>well-formed</em>: every contract value is one the webhook accepts, yet still varied
 * (spellings of the engine and role, forwarding declared or not, several containers with the container annotation,
 * launchers before the engine, env with duplicates, {@code valueFrom} and odd text, {@code envFrom}, foreign
 * annotations with {@code /} and {@code ~} in their keys, missing optional fields), so that many are admitted. The
 * rest are <em>awkward</em>: any part may also take a value the contract refuses or ignores — the opt-in label not
 * exactly "true", the CacheBlend label too, no annotations map, an invalid engine, manufacturer, role or forwarding
 * value, unknown, {@code domain} and reserved keys, a missing or cross-namespace binding, an unknown or init
 * container, no or two same-named targets, a shell, script, wrapper or the other engine's launch, args-only or
 * neither, owned-flag spellings, owned env names, mounts and volumes colliding with {@code gpustack-kvcache-config}
 * or {@code /etc/gpustack/kvcache}, explicit nulls.
 */
final class KvCachePods {
    static final String PREFIX = "kvcache.gpustack.ai/";
    static final String LABEL = PREFIX + "inject";

    enum Runtime { VLLM, VLLM_ASCEND, SGLANG }

    private static final List<List<String>> VLLM_LAUNCHES = List.of(
            List.of("vllm", "serve", "Qwen/Qwen3-8B"),
            List.of("/opt/venv/bin/vllm", "serve"),
            List.of("tini", "--", "vllm", "serve", "m"),
            List.of("/usr/bin/tini", "--", "vllm", "serve"),
            List.of("env", "-i", "vllm", "serve"),
            List.of("dumb-init", "vllm", "serve"),
            List.of("timeout", "-s", "KILL", "30", "vllm", "serve"),
            List.of("env", "HF_HOME=/cache", "vllm", "serve", "m"));
    private static final List<List<String>> SGLANG_LAUNCHES = List.of(
            List.of("python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"),
            List.of("/usr/bin/python3", "-m", "sglang.launch_server"),
            List.of("tini", "--", "python3", "-m", "sglang.launch_server"),
            List.of("env", "-u", "HOME", "python3", "-m", "sglang.launch_server"));
    /** Launches admission cannot prove (shells, scripts, wrappers, hidden or empty command lines). */
    private static final List<List<String>> UNPROVEN_LAUNCHES = List.of(
            List.of("sh", "-c", "vllm serve m"),
            List.of("bash", "-lc", "exec python3 -m sglang.launch_server"),
            List.of("/app/start.sh"),
            List.of("sh", "/app/start.sh"),
            List.of("python", "-m", "vllm.entrypoints.openai.api_server"),
            List.of("entrypoint"),
            List.of("env", "-S", "vllm serve --model m"),
            List.of("tini", "--"),
            List.of("gosu", "user", "vllm", "serve"),
            List.of("python3.12", "-m", "sglang.launch_server"));
    private static final List<List<String>> ARGS_ONLY = List.of(
            List.of("serve", "Qwen/Qwen3-8B"), List.of("--model", "m"), List.of("--model-path", "m"), List.of());
    private static final List<String> BENIGN_FLAGS = List.of("--model", "Qwen/Qwen3-8B", "--port=8000", "-tp", "2",
            "--max-model-len", "8192", "--enable-hierarchical-cache", "--served-model-name", "chat-é",
            "--trust-remote-code", "--gpu-memory-utilization", "0.9", "--config", "/etc/engine/cfg.yaml",
            "--kv-events-config", "--enable-hier");
    /** Spellings an engine reads as a flag the webhook owns or refuses (D2, D3, config sources). */
    private static final List<String> OWNED_FLAGS = List.of("--kv-transfer-config", "{\"kv_connector\":\"X\"}",
            "--kv_transfer_config={}", "--kv-transfer-config.kv_role=kv_both", "--kv-t", "--kv-cache-dtype",
            "--kv-cache-dtype=fp8", "--kv_cache_dtype", "--kv-offloading-size", "--kv-offloading-backend=native",
            "--hicache-storage-backend", "mooncake", "--hicache-storage-backend-extra-config",
            "--hicache-storage-backend=file", "--kv");
    private static final List<String> BENIGN_ENV = List.of("HF_HOME", "NCCL_DEBUG", "É_VAR", "MC_TE_METRIC",
            "MC_STORE_CLIENT_METRIC_BANDWIDTH", "MOONCAKE_PROTOCOL", "MOONCAKE_TENANT_ID", "MOONCAKE_DEVICE",
            "MOONCAKE_LOCAL_HOSTNAME", "PYTHONPATH", "VLLM_PLUGINS");
    /** Names the webhook refuses in env on some engine (owned, or a config source: D13 on vLLM-Ascend). */
    private static final List<String> REFUSED_ENV = List.of("MOONCAKE_CONFIG_PATH", "SGLANG_HICACHE_MOONCAKE_CONFIG_PATH",
            "MOONCAKE_GLOBAL_SEGMENT_SIZE", "MOONCAKE_MASTER");

    private KvCachePods() {
    }

    /** Well-formed Pods two times in three, awkward ones otherwise, for each runtime alike. */
    static Arbitrary<GeneratedPod> pods() {
        // every arbitrary is built once here: a flatMap would build fresh generators per sample
        return Arbitraries.frequencyOf(
                Tuple.of(65, Arbitraries.oneOf(podsFor(Runtime.VLLM, true), podsFor(Runtime.VLLM_ASCEND, true),
                        podsFor(Runtime.SGLANG, true))),
                Tuple.of(35, Arbitraries.oneOf(podsFor(Runtime.VLLM, false), podsFor(Runtime.VLLM_ASCEND, false),
                        podsFor(Runtime.SGLANG, false))));
    }

    /** {@code valid} when {@code wellFormed}; otherwise {@code awkward} {@code percent} of the time. */
    private static <T> Arbitrary<T> varied(boolean wellFormed, Arbitrary<T> valid, int percent, Arbitrary<T> awkward) {
        return wellFormed ? valid : Arbitraries.frequencyOf(Tuple.of(100 - percent, valid), Tuple.of(percent, awkward));
    }

    private static Arbitrary<GeneratedPod> podsFor(Runtime runtime, boolean wellFormed) {
        Arbitrary<PodParts.Meta> meta = Combinators.combine(
                varied(wellFormed, Arbitraries.just("team-a"), 10, Arbitraries.just("team-b")),
                Arbitraries.frequency(Tuple.of(55, "same"), Tuple.of(40, "absent"), Tuple.of(5, "empty")),
                Arbitraries.frequency(Tuple.of(70, "name"), Tuple.of(20, "generateName"), Tuple.of(5, "none"), Tuple.of(5, "odd")),
                labels(wellFormed), annotations(runtime, wellFormed),
                varied(wellFormed, Arbitraries.of("as a user would", "always"), 25,
                        Arbitraries.of("empty", "unknown name", "init container", "never")),
                varied(wellFormed, Arbitraries.just(false), 10, Arbitraries.just(true)))
                .as(PodParts.Meta::new);
        Arbitrary<PodParts.SpecParts> spec = Combinators.combine(
                container(targetLaunch(runtime, wellFormed), runtime, wellFormed),
                container(sidecarLaunch(), runtime, false).list().ofMaxSize(4),
                varied(wellFormed, Arbitraries.just(1), 20, Arbitraries.of(0, 2)),
                Arbitraries.integers().between(0, 4),
                Arbitraries.of("init", "download-model", "cb-plugin-stage").list().ofMaxSize(2).injectNull(0.7),
                PodParts.volumes(varied(wellFormed, Arbitraries.of("cache", "models", "shm"), 15,
                        Arbitraries.just("gpustack-kvcache-config"))),
                Arbitraries.of(Boolean.TRUE, Boolean.FALSE).injectNull(0.8), podExtras())
                .as(PodParts.SpecParts::new);
        return Combinators.combine(meta, spec).as((m, p) -> PodParts.assemble(m, p, PREFIX + "container"));
    }

    /** Labels: the opt-in exactly "true" (awkward: other values, absent, the CacheBlend label too, no labels map). */
    private static Arbitrary<Map<String, Object>> labels(boolean wellFormed) {
        Arbitrary<String> inject = varied(wellFormed, Arbitraries.just("true"), 40,
                Arbitraries.of("True", "yes", "", "true ", "1", "TRUE").injectNull(0.2));
        Arbitrary<String> cacheBlend = varied(wellFormed, Arbitraries.of((String) null, "false"), 20, Arbitraries.just("true"));
        Arbitrary<String> form = varied(wellFormed, Arbitraries.frequency(Tuple.of(85, "plain"), Tuple.of(15, "with a note")),
                15, Arbitraries.just("no map"));
        return Combinators.combine(inject, cacheBlend, PodParts.text(), form)
                .as((i, c, text, f) -> {
                    if (f.equals("no map")) {
                        return null;
                    }
                    Map<String, Object> labels = new LinkedHashMap<>();
                    labels.put("app", "chat");
                    PodParts.put(labels, LABEL, i, false);
                    PodParts.put(labels, "lmcache.ai/cacheblend-inject", c, false);
                    if (f.equals("with a note")) {
                        labels.put("example.com/note", text);
                    }
                    return labels;
                });
    }

    /** The annotation set for an intended runtime. */
    private static Arbitrary<Map<String, Object>> annotations(Runtime runtime, boolean wellFormed) {
        Arbitrary<String> binding = varied(wellFormed, Arbitraries.frequency(Tuple.of(85, "chat"), Tuple.of(15, "other")), 40,
                Arbitraries.oneOf(Arbitraries.of("", "team-a/chat", "missing").injectNull(0.2), PodParts.text()));
        Arbitrary<String> engine = varied(wellFormed, switch (runtime) {
            case VLLM, VLLM_ASCEND -> Arbitraries.of("vLLM", "vllm", "VLLM");
            case SGLANG -> Arbitraries.of("SGLang", "sglang", "SGLANG");
        }, 20, Arbitraries.of("", " vLLM", "vllm-ascend", "TensorRT-LLM", "Server").injectNull(0.2));
        Arbitrary<String> manufacturer = runtime == Runtime.VLLM_ASCEND
                ? varied(wellFormed, Arbitraries.of("ascend", "Ascend", "ASCEND"), 10, Arbitraries.of("huawei", "", "ascend "))
                : varied(wellFormed, Arbitraries.just((String) null), 15, Arbitraries.of("huawei", "", "ascend"));
        Arbitrary<String> role = varied(wellFormed, Arbitraries.frequency(Tuple.of(50, (String) null), Tuple.of(15, "Prefill"),
                Tuple.of(15, "decode"), Tuple.of(10, "DECODE"), Tuple.of(10, "")), 25, Arbitraries.of("Server", "both", "prefill "));
        Arbitrary<String> forwarded = varied(wellFormed, Arbitraries.frequency(Tuple.of(80, (String) null), Tuple.of(20, "true")),
                15, Arbitraries.of("True", "", "yes"));
        Arbitrary<Map<String, String>> ours = varied(wellFormed, Arbitraries.just(Map.<String, String>of()), 35, Arbitraries.of(
                Map.of(PREFIX + "bindng", "chat"), Map.of(PREFIX + "Binding", "chat"), Map.of(PREFIX + "domain", ""),
                Map.of(PREFIX + "domain", "team-a-chat"), Map.of(PREFIX + "client-config", "{}"),
                Map.of(PREFIX + "injected", "{\"binding\":\"chat\"}"), Map.of(PREFIX, "x")));
        Arbitrary<Map<String, String>> foreign = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.just(Map.<String, String>of())),
                Tuple.of(3, PodParts.text().map(t -> Map.of("example.com/a~b/c", t, "note", "ü\u0001\n"))),
                Tuple.of(1, Arbitraries.just(Map.of("lmcache.ai/cacheblend-engine", "cb"))));
        Arbitrary<String> mapForm = varied(wellFormed, Arbitraries.just("map"), 15, Arbitraries.of("no map", "empty map"));
        return Combinators.combine(binding, engine, manufacturer, role, forwarded, ours, foreign, mapForm)
                .as((b, e, m, r, f, o, x, form) -> {
                    if (form.equals("no map")) {
                        return null;
                    }
                    Map<String, Object> a = new LinkedHashMap<>();
                    if (form.equals("empty map")) {
                        return a;
                    }
                    a.putAll(x);
                    PodParts.put(a, PREFIX + "binding", b, false);
                    PodParts.put(a, PREFIX + "engine", e, false);
                    PodParts.put(a, PREFIX + "manufacturer", m, false);
                    PodParts.put(a, PREFIX + "role", r, false);
                    PodParts.put(a, PREFIX + "launch-args-forwarded", f, false);
                    a.putAll(o);
                    return a;
                });
    }

    private static Arbitrary<Map<String, Object>> targetLaunch(Runtime runtime, boolean wellFormed) {
        List<List<String>> own = runtime == Runtime.SGLANG ? SGLANG_LAUNCHES : VLLM_LAUNCHES;
        List<List<String>> other = runtime == Runtime.SGLANG ? VLLM_LAUNCHES : SGLANG_LAUNCHES;
        Arbitrary<List<String>> argv = varied(wellFormed, Arbitraries.of(own), 45,
                Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.of(UNPROVEN_LAUNCHES)), Tuple.of(1, Arbitraries.of(other))));
        Arbitrary<Layout> layout = varied(wellFormed, Arbitraries.frequency(Tuple.of(75, Layout.SPLIT),
                Tuple.of(25, Layout.COMMAND_ONLY)), 35, Arbitraries.of(Layout.ARGS_ONLY, Layout.EMPTY_ARGS, Layout.NEITHER));
        return PodParts.launch(argv, Arbitraries.of(ARGS_ONLY), layout, flags(wellFormed));
    }

    private static Arbitrary<Map<String, Object>> sidecarLaunch() {
        Arbitrary<List<String>> argv = Arbitraries.of(List.of("envoy", "-c", "/etc/envoy.yaml"),
                List.of("/bin/sh", "-c", "tail -f /dev/null"), List.of("fluent-bit"), List.of("vllm", "serve"));
        return PodParts.launch(argv, Arbitraries.just(List.of("--log-level", "info")), Arbitraries.of(Layout.values()),
                flags(false));
    }

    private static Arbitrary<List<String>> flags(boolean wellFormed) {
        return PodParts.flags(varied(wellFormed, Arbitraries.of(BENIGN_FLAGS), 25, Arbitraries.of(OWNED_FLAGS)));
    }

    private static Arbitrary<Map<String, Object>> container(Arbitrary<Map<String, Object>> launch, Runtime runtime,
                                                            boolean wellFormed) {
        List<String> fine = new ArrayList<>(BENIGN_ENV);
        if (runtime != Runtime.VLLM_ASCEND) {
            fine.add("MOONCAKE_MASTER");
        }
        Arbitrary<String> envNames = varied(wellFormed, Arbitraries.of(fine), 12, Arbitraries.of(REFUSED_ENV));
        Arbitrary<String> mountNames = varied(wellFormed, Arbitraries.of("cache", "models", "shm"), 8,
                Arbitraries.just("gpustack-kvcache-config"));
        Arbitrary<String> mountPaths = varied(wellFormed,
                Arbitraries.of("/cache", "/models", "/dev/shm", "/etc/gpustack", "/etc/gpustack/kvcache-other"), 12,
                Arbitraries.of("/etc/gpustack/kvcache", "/etc/gpustack/kvcache/", "/etc/gpustack/kvcache/extra"));
        return Combinators.combine(PodParts.containerName(), launch, PodParts.env(envNames), PodParts.envFrom(),
                        PodParts.mounts(mountNames, mountPaths), PodParts.unreadContainerFields())
                .as((name, l, env, envFrom, mounts, unread) -> {
                    Map<String, Object> c = new LinkedHashMap<>();
                    c.put("name", name);
                    c.put("image", "vllm/vllm-openai:v0.29.0");
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
                Map.<String, Object>of("restartPolicy", "Always", "serviceAccountName", "default"),
                Map.<String, Object>of("nodeSelector", Map.of("nvidia.com/gpu.present", "true"),
                        "tolerations", List.of(Map.of("key", "nvidia.com/gpu", "operator", "Exists", "effect", "NoSchedule"))),
                Map.<String, Object>of("imagePullSecrets", List.of(Map.of("name", "registry"))),
                Map.<String, Object>of("securityContext", Map.of("fsGroup", 2000), "terminationGracePeriodSeconds", 30));
    }
}
