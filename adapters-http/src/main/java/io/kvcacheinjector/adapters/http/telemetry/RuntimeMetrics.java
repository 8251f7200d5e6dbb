package io.kvcacheinjector.adapters.http.telemetry;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The process around the webhook: the Prometheus Java client's standard JVM and process metrics
 * ({@code jvm_memory_used_bytes}, {@code jvm_threads_current}, {@code jvm_gc_collection_seconds},
 * {@code process_resident_memory_bytes}, {@code process_cpu_seconds_total}, …) and
 * {@code kvcache_injector_memory_limit_bytes}, the container's memory limit ({@link ContainerMemoryLimit}, read at
 * every scrape; no sample when unlimited or unreadable).
 */
public final class RuntimeMetrics implements MetricSource {
    /** The memory limit gauge's name. */
    public static final String MEMORY_LIMIT_BYTES = "kvcache_injector_memory_limit_bytes";

    private final ContainerMemoryLimit memoryLimit;

    public RuntimeMetrics(ContainerMemoryLimit memoryLimit) {
        this.memoryLimit = Objects.requireNonNull(memoryLimit, "memoryLimit");
    }

    /** JVM and process metrics, and the limit of the cgroup at {@link ContainerMemoryLimit#DEFAULT_ROOT}. */
    public static RuntimeMetrics standard() {
        return new RuntimeMetrics(new ContainerMemoryLimit(ContainerMemoryLimit.DEFAULT_ROOT));
    }

    @Override
    public void registerIn(PrometheusRegistry registry) {
        JvmMetrics.builder().register(registry);
        registry.register(GaugeWithCallback.builder()
                .name(MEMORY_LIMIT_BYTES)
                .help("The container's memory limit from its cgroup (memory.max), in bytes; absent when unlimited.")
                .callback(callback -> {
                    OptionalLong limit = memoryLimit.bytes();
                    if (limit.isPresent()) {
                        callback.call(limit.getAsLong());
                    }
                })
                .build());
    }
}
