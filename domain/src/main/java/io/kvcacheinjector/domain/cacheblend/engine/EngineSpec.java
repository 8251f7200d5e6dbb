package io.kvcacheinjector.domain.cacheblend.engine;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code CacheBlendEngine} spec with the defaults applied and validated (docs/reference/cacheblend-engine.md
 * "Defaults" and "Validation"). Only {@link EngineSpecReader} makes one, so every instance is valid.
 *
 * @param gpuVendor          {@code nvidia} or {@code amd}
 * @param image              the engine image ({@code lmcache/vllm-openai:latest}, {@code IfNotPresent})
 * @param imagePullSecrets   {@code spec.imagePullSecrets[].name}, for the engine image
 * @param port               {@code spec.server.port}, 5555
 * @param chunkSize          always 256
 * @param maxWorkers         {@code spec.server.maxWorkers}, 1
 * @param hashAlgorithm      {@code spec.server.hashAlgorithm}, {@code blake3}
 * @param l1SizeGb           {@code spec.l1.sizeGB}, required, &gt; 0
 * @param evictionPolicy     {@code LRU}
 * @param triggerWatermark   {@code spec.eviction.triggerWatermark}, 0.8
 * @param evictionRatio      {@code spec.eviction.evictionRatio}, 0.2
 * @param prometheus         metrics settings
 * @param l2                 the L2 backend, when set
 * @param coordinator        {@code spec.coordinator}, when set
 * @param checkLayer         {@code spec.blend.checkLayer}, 1
 * @param recompRatio        {@code spec.blend.recompRatio}, 0.15
 * @param privileged         {@code spec.privileged}, false
 * @param hostIpc            {@code spec.hostIPC} as written
 * @param pd                 whether {@code spec.pd} is set
 * @param logLevel           {@code spec.logLevel}, {@code INFO}
 * @param nodeSelector       {@code spec.nodeSelector}; {@code nvidia.com/gpu.present: "true"} for nvidia when unset
 * @param pod                what is copied onto the engine Pod as written
 * @param extraArgs          appended last to the engine command line
 */
public record EngineSpec(
        String gpuVendor,
        Image image,
        List<String> imagePullSecrets,
        int port,
        int chunkSize,
        int maxWorkers,
        String hashAlgorithm,
        double l1SizeGb,
        String evictionPolicy,
        double triggerWatermark,
        double evictionRatio,
        Prometheus prometheus,
        Optional<L2Backend> l2,
        Optional<Coordinator> coordinator,
        int checkLayer,
        double recompRatio,
        boolean privileged,
        Optional<Boolean> hostIpc,
        boolean pd,
        String logLevel,
        Map<String, String> nodeSelector,
        PodExtras pod,
        List<String> extraArgs) {

    /** The chunk size the engine must use: vLLM {@code --block-size 64} times 4. */
    public static final int CHUNK_SIZE = 256;

    public EngineSpec {
        imagePullSecrets = List.copyOf(imagePullSecrets);
        nodeSelector = Map.copyOf(nodeSelector);
        extraArgs = List.copyOf(extraArgs);
    }

    /** Whether the engine Pod shares the host's IPC namespace ({@code spec.hostIPC} unset or true). */
    public boolean usesHostIpc() {
        return hostIpc.orElse(true);
    }

    /** An image reference with its defaults applied. */
    public record Image(String repository, String tag, String pullPolicy) {
        /** {@code repository:tag}. */
        public String reference() {
            return repository + ":" + tag;
        }
    }

    /** {@code spec.prometheus}: the metrics port and the optional ServiceMonitor. */
    public record Prometheus(boolean enabled, int port, boolean serviceMonitor, String interval,
                             Map<String, String> serviceMonitorLabels) {
        public Prometheus {
            serviceMonitorLabels = Map.copyOf(serviceMonitorLabels);
        }
    }

    /**
     * {@code spec.l2Backend}: a typed RESP adapter ({@code resp: {host, port, authSecretRef}}) or the raw escape
     * hatch ({@code raw: {args: [...]}}).
     *
     * @param respHost       the RESP server host (RESP only)
     * @param respPort       the RESP server port (RESP only)
     * @param authSecret     the RESP auth Secret to copy into the engine's namespace (RESP only)
     * @param rawArgs        the engine arguments given as written (raw only)
     */
    public record L2Backend(Optional<String> respHost, int respPort, Optional<SecretRef> authSecret,
                            List<String> rawArgs) {
        public L2Backend {
            rawArgs = List.copyOf(rawArgs);
        }
    }

    /**
     * {@code spec.coordinator}: a URL, or a reference to an {@code LMCacheCoordinator} whose Service has its name.
     *
     * @param url           the coordinator URL as written
     * @param refNamespace  the reference's namespace, empty meaning the engine's
     * @param refName       the reference's name (empty with a URL)
     */
    public record Coordinator(Optional<String> url, String refNamespace, String refName) {
    }

    /** A Secret in another (or the same) namespace. */
    public record SecretRef(String namespace, String name) {
    }

    /** The engine Pod settings that are copied as written. */
    public record PodExtras(
            Map<String, Object> resourceOverrides,
            Optional<Object> affinity,
            List<Object> tolerations,
            List<Object> env,
            List<Object> volumes,
            List<Object> volumeMounts,
            Map<String, String> podAnnotations,
            Map<String, String> podLabels,
            Optional<String> serviceAccountName,
            Optional<String> priorityClassName) {
    }
}
