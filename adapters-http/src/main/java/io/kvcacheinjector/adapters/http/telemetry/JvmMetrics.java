package io.kvcacheinjector.adapters.http.telemetry;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.RuntimeMXBean;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * JVM and process basics under the names the Prometheus Java client uses: memory by area, threads, GC
 * collections and time, process start time, CPU time and open file descriptors (where the platform reports them).
 */
public final class JvmMetrics implements MetricSource {

    @Override
    public void appendTo(StringBuilder out) {
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        MemoryUsage nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage();
        PrometheusText.header(out, "jvm_memory_bytes_used", "gauge", "Used bytes of a given JVM memory area.");
        PrometheusText.sample(out, "jvm_memory_bytes_used", heap.getUsed(), "area", "heap");
        PrometheusText.sample(out, "jvm_memory_bytes_used", nonHeap.getUsed(), "area", "nonheap");
        PrometheusText.header(out, "jvm_memory_bytes_committed", "gauge", "Committed bytes of a given JVM memory area.");
        PrometheusText.sample(out, "jvm_memory_bytes_committed", heap.getCommitted(), "area", "heap");
        PrometheusText.sample(out, "jvm_memory_bytes_committed", nonHeap.getCommitted(), "area", "nonheap");
        PrometheusText.header(out, "jvm_memory_bytes_max", "gauge", "Max bytes of a given JVM memory area (-1 when undefined).");
        PrometheusText.sample(out, "jvm_memory_bytes_max", heap.getMax(), "area", "heap");
        PrometheusText.sample(out, "jvm_memory_bytes_max", nonHeap.getMax(), "area", "nonheap");

        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        PrometheusText.header(out, "jvm_threads_current", "gauge", "Current thread count of the JVM (platform threads).");
        PrometheusText.sample(out, "jvm_threads_current", threads.getThreadCount());
        PrometheusText.header(out, "jvm_threads_daemon", "gauge", "Daemon thread count of the JVM.");
        PrometheusText.sample(out, "jvm_threads_daemon", threads.getDaemonThreadCount());

        List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
        PrometheusText.header(out, "jvm_gc_collection_seconds_count", "counter", "Collections run by a given JVM garbage collector.");
        for (GarbageCollectorMXBean gc : gcs) {
            PrometheusText.sample(out, "jvm_gc_collection_seconds_count", Math.max(0, gc.getCollectionCount()),
                    "gc", gc.getName());
        }
        PrometheusText.header(out, "jvm_gc_collection_seconds_sum", "counter", "Time spent in a given JVM garbage collector, in seconds.");
        for (GarbageCollectorMXBean gc : gcs) {
            PrometheusText.sample(out, "jvm_gc_collection_seconds_sum", Math.max(0, gc.getCollectionTime()) / 1000.0,
                    "gc", gc.getName());
        }

        RuntimeMXBean runtime = ManagementFactory.getRuntimeMXBean();
        PrometheusText.header(out, "process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch, in seconds.");
        PrometheusText.sample(out, "process_start_time_seconds", runtime.getStartTime() / 1000.0);

        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun && sun.getProcessCpuTime() >= 0) {
            PrometheusText.header(out, "process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds.");
            PrometheusText.sample(out, "process_cpu_seconds_total", sun.getProcessCpuTime() / 1e9);
        }
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            PrometheusText.header(out, "process_open_fds", "gauge", "Number of open file descriptors.");
            PrometheusText.sample(out, "process_open_fds", unix.getOpenFileDescriptorCount());
            PrometheusText.header(out, "process_max_fds", "gauge", "Maximum number of open file descriptors.");
            PrometheusText.sample(out, "process_max_fds", unix.getMaxFileDescriptorCount());
        }
    }
}
