package io.kvcacheinjector.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;

/** What the bench reports about its own process: resident memory, heap, the JVM and how long ago it started. */
final class ProcessFacts {
    private ProcessFacts() {
    }

    /** The resident set size from {@code /proc/self/status} (Linux); empty where that file does not exist. */
    static OptionalLong residentBytes() {
        Path status = Path.of("/proc/self/status");
        try {
            if (!Files.isReadable(status)) {
                return OptionalLong.empty();
            }
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmRSS:")) {
                    String[] parts = line.substring(6).trim().split("\\s+");
                    long kib = Long.parseLong(parts[0]);
                    return OptionalLong.of(kib * 1024);
                }
            }
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
        return OptionalLong.empty();
    }

    /**
     * The CPU time this process has used so far (every thread: servers, client, JIT, GC), in nanoseconds; -1 when
     * the JVM cannot tell.
     */
    static long cpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /**
     * The time the JIT compilers have spent so far, in milliseconds (summed over compiler threads); -1 when the JVM
     * does not track it.
     */
    static long jitMillis() {
        java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    /** The heap in use now, in bytes. */
    static long heapUsedBytes() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** The heap committed now, in bytes. */
    static long heapCommittedBytes() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
    }

    /** The heap limit (-Xmx or the ergonomic one), in bytes. */
    static long heapMaxBytes() {
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        return heap.getMax() > 0 ? heap.getMax() : Runtime.getRuntime().maxMemory();
    }

    /** The memory outside the heap the JVM reports (metaspace, code cache, ...), in bytes. */
    static long nonHeapUsedBytes() {
        return ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage().getUsed();
    }

    /** The garbage collectors in use, for example {@code G1 Young Generation, G1 Old Generation}. */
    static List<String> collectors() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName).toList();
    }

    /** The JVM options given on the command line (and by {@code JAVA_TOOL_OPTIONS}). */
    static List<String> jvmOptions() {
        return List.copyOf(ManagementFactory.getRuntimeMXBean().getInputArguments());
    }

    /** The runtime, for example {@code 25.0.1+8-LTS (Eclipse Adoptium)}. */
    static String runtime() {
        return Runtime.version() + " (" + System.getProperty("java.vendor", "?") + ")";
    }

    static int processors() {
        return Runtime.getRuntime().availableProcessors();
    }

    /** How long ago this process started (the operating system's start time, else the JVM's). */
    static Duration sinceProcessStart() {
        Instant start = ProcessHandle.current().info().startInstant()
                .orElse(Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime()));
        return Duration.between(start, Instant.now());
    }
}
