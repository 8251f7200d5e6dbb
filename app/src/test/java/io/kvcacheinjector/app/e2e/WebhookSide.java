package io.kvcacheinjector.app.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;

/**
 * One registered webhook as the API server reaches it on a {@link NodeCluster}: the Pods behind its Service (the
 * node's API server runs with {@code --enable-aggregator-routing}, so it dials a Pod's address directly). What
 * {@link AdmissionLatencyBench} reads around a window to say where the time goes: the API server's connections to it
 * ({@code ss} in the node's network namespace), and each Pod's CPU time and CFS throttling (its container's cgroup).
 */
record WebhookSide(String webhook, String namespace, String selector, List<PodRef> pods) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A Pod behind the Service: its address and serving port, and its first container's id (containerd's). */
    record PodRef(String name, String ip, int port, String containerId) {
    }

    /** The Service and Pods of the webhook named {@code webhook} in a MutatingWebhookConfiguration. */
    static WebhookSide resolve(NodeCluster cluster, String webhook) {
        JsonNode configurations = read(cluster.kubectlOk("get", "mutatingwebhookconfigurations", "-o", "json"));
        for (JsonNode configuration : configurations.path("items")) {
            for (JsonNode hook : configuration.path("webhooks")) {
                if (hook.path("name").asText().equals(webhook)) {
                    JsonNode ref = hook.path("clientConfig").path("service");
                    return of(cluster, webhook, ref.path("namespace").asText(), ref.path("name").asText());
                }
            }
        }
        throw new IllegalStateException("no MutatingWebhookConfiguration registers " + webhook);
    }

    private static WebhookSide of(NodeCluster cluster, String webhook, String namespace, String service) {
        JsonNode svc = read(cluster.kubectlOk("-n", namespace, "get", "service", service, "-o", "json"));
        StringJoiner selector = new StringJoiner(",");
        svc.path("spec").path("selector").fields().forEachRemaining(e -> selector.add(e.getKey() + "=" + e.getValue().asText()));
        JsonNode targetPort = svc.path("spec").path("ports").path(0).path("targetPort");
        List<PodRef> pods = new ArrayList<>();
        for (JsonNode pod : read(cluster.kubectlOk("-n", namespace, "get", "pods", "-l", selector.toString(), "-o",
                "json")).path("items")) {
            if (pod.path("metadata").has("deletionTimestamp")) {
                continue; // a replica of a rollout, stopping
            }
            int port = targetPort.isInt() ? targetPort.asInt() : -1;
            for (JsonNode p : pod.path("spec").path("containers").path(0).path("ports")) {
                if (p.path("name").asText().equals(targetPort.asText())) {
                    port = p.path("containerPort").asInt();
                }
            }
            String id = pod.path("status").path("containerStatuses").path(0).path("containerID").asText();
            pods.add(new PodRef(pod.path("metadata").path("name").asText(), pod.path("status").path("podIP").asText(),
                    port, id.substring(id.indexOf("://") + 3)));
        }
        return new WebhookSide(webhook, namespace, selector.toString(), List.copyOf(pods));
    }

    /**
     * The container restarts of the webhook's Pods and the kubelet's failed probes in its namespace so far, as one
     * line ({@code none} when there are neither): a window in which a replica restarted is not a measurement of the
     * webhook but of its restart, and says why (the last termination's reason and exit code, the last probe failure).
     */
    String restarts(NodeCluster cluster) {
        StringJoiner out = new StringJoiner("; ");
        for (JsonNode pod : read(cluster.kubectlOk("-n", namespace, "get", "pods", "-l", selector, "-o", "json"))
                .path("items")) {
            for (JsonNode status : pod.path("status").path("containerStatuses")) {
                int restarts = status.path("restartCount").asInt();
                if (restarts > 0) {
                    JsonNode last = status.path("lastState").path("terminated");
                    out.add(String.format(Locale.ROOT, "%s restarted %d times (last: %s, exit %s, at %s)",
                            pod.path("metadata").path("name").asText(), restarts, last.path("reason").asText("?"),
                            last.path("exitCode").asText("?"), last.path("finishedAt").asText("?")));
                }
            }
        }
        JsonNode unhealthy = read(cluster.kubectlOk("-n", namespace, "get", "events", "--field-selector",
                "reason=Unhealthy", "-o", "json")).path("items");
        int failedProbes = 0;
        String lastMessage = "";
        for (JsonNode event : unhealthy) {
            failedProbes += Math.max(1, event.path("count").asInt(1));
            lastMessage = event.path("message").asText();
        }
        if (failedProbes > 0) {
            out.add(failedProbes + " failed probes (last: " + lastMessage.strip() + ")");
        }
        return out.length() == 0 ? "none" : out.toString();
    }

    /** CPU time and CFS throttling of every Pod's container, summed: read before and after a window. */
    record Cpu(double usageSeconds, long periods, long throttledPeriods, double throttledSeconds) {
        Cpu minus(Cpu before) {
            return new Cpu(usageSeconds - before.usageSeconds, periods - before.periods,
                    throttledPeriods - before.throttledPeriods, throttledSeconds - before.throttledSeconds);
        }
    }

    /** This side's {@link Cpu} now (cgroup v1 {@code cpu}/{@code cpuacct}, or v2's {@code cpu.stat}). */
    Cpu cpu(NodeCluster cluster) {
        double usage = 0;
        long periods = 0;
        long throttled = 0;
        double throttledSeconds = 0;
        for (PodRef pod : pods) {
            Optional<Path> cpuDir = cluster.cgroup("cpu", pod.containerId());
            Map<String, Long> stat = cpuDir.map(d -> keyValues(d.resolve("cpu.stat"))).orElse(Map.of());
            periods += stat.getOrDefault("nr_periods", 0L);
            throttled += stat.getOrDefault("nr_throttled", 0L);
            if (stat.containsKey("throttled_usec")) {
                throttledSeconds += stat.get("throttled_usec") / 1e6;
                usage += stat.getOrDefault("usage_usec", 0L) / 1e6;
            } else {
                throttledSeconds += stat.getOrDefault("throttled_time", 0L) / 1e9;
                Optional<Path> acct = cluster.cgroup("cpuacct", pod.containerId());
                usage += acct.map(d -> {
                    try {
                        return Long.parseLong(Files.readString(d.resolve("cpuacct.usage")).strip()) / 1e9;
                    } catch (IOException | NumberFormatException e) {
                        return 0.0;
                    }
                }).orElse(0.0);
            }
        }
        return new Cpu(usage, periods, throttled, throttledSeconds);
    }

    /**
     * Each Pod's highest memory use since its container started, in MiB (cgroup v1 {@code memory.max_usage_in_bytes},
     * or v2's {@code memory.peak}), against its limit: what a window came closest to an OOM kill.
     */
    String memoryPeaks(NodeCluster cluster) {
        StringJoiner out = new StringJoiner(", ");
        for (PodRef pod : pods) {
            Optional<Path> dir = cluster.cgroup("memory", pod.containerId());
            long peak = dir.map(d -> firstLong(d.resolve("memory.max_usage_in_bytes"), d.resolve("memory.peak")))
                    .orElse(-1L);
            long limit = dir.map(d -> firstLong(d.resolve("memory.limit_in_bytes"), d.resolve("memory.max")))
                    .orElse(-1L);
            out.add(peak < 0 ? pod.name() + " ?" : String.format(Locale.ROOT, "%.0f of %.0f MiB", peak / 1048576.0,
                    limit / 1048576.0));
        }
        return out.toString();
    }

    private static long firstLong(Path... files) {
        for (Path f : files) {
            try {
                return Long.parseLong(Files.readString(f).strip());
            } catch (IOException | NumberFormatException e) {
                // the other cgroup version's file, or a container gone
            }
        }
        return -1;
    }

    private static Map<String, Long> keyValues(Path file) {
        Map<String, Long> out = new HashMap<>();
        try {
            for (String line : Files.readAllLines(file)) {
                String[] kv = line.strip().split("\\s+");
                if (kv.length == 2) {
                    out.put(kv[0], Long.parseLong(kv[1]));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // a container gone or a file of another shape: nothing counted
        }
        return out;
    }

    /** Every Pod's {@code GET /metrics} (HTTPS, the serving port), concatenated: totals sum over the replicas. */
    MetricsSnapshot podMetrics(NodeCluster cluster) {
        StringBuilder all = new StringBuilder();
        for (PodRef pod : pods) {
            all.append(cluster.exec(List.of("curl", "-sSk", "--max-time", "10", "https://" + pod.ip() + ":" + pod.port()
                    + "/metrics"), "", Duration.ofSeconds(30)).requireSuccess("curl the metrics of " + pod.name()).out())
                    .append('\n');
        }
        return MetricsSnapshot.parse(all.toString());
    }

    /**
     * The TCP connections to the sides' Pods, sampled every half second by {@code ss} in the node's namespace until
     * {@link #stop()}: each sample lists the established connections with their socket inode and counters, and the
     * socket inodes the API server holds ({@code /proc/PID/fd}: one process, unlike {@code ss -p}, which reads every
     * process's and cost enough CPU to tip a loaded node over).
     */
    static final class ConnectionSampler {
        private final Process process;
        private final Path out;
        private final Path stop;

        private ConnectionSampler(Process process, Path out, Path stop) {
            this.process = process;
            this.out = out;
            this.stop = stop;
        }

        static ConnectionSampler start(NodeCluster cluster, List<WebhookSide> sides, Path dir, String name) {
            Path out = dir.resolve(name + "-ss.txt");
            Path stop = dir.resolve(name + "-ss.stop");
            try {
                Files.deleteIfExists(stop);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            StringJoiner filter = new StringJoiner(" or ");
            sides.forEach(s -> s.pods().forEach(p -> filter.add("dst " + p.ip())));
            String loop = "pid=$(cat '" + cluster.dir().resolve("pids/kube-apiserver") + "'); while [ ! -e '" + stop
                    + "' ]; do echo @; echo \"apiserver $(ls -l /proc/$pid/fd 2>/dev/null | grep -o 'socket:\\[[0-9]*'"
                    + " | tr -dc '0-9\\n' | tr '\\n' ' ')\"; ss -tnieH state established '( " + filter
                    + " )'; sleep 0.5; done";
            return new ConnectionSampler(cluster.spawn(List.of("bash", "-c", loop), out), out, stop);
        }

        /** Ends the sampling and reads the samples. */
        Connections stop() throws IOException, InterruptedException {
            Files.writeString(stop, "");
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            return Connections.parse(Files.readAllLines(out));
        }
    }

    /**
     * The samples of a {@link ConnectionSampler}: per sample, connection (local address) to its counters, and the
     * socket inodes the API server held.
     */
    record Connections(List<Map<String, Conn>> samples, List<Set<String>> apiServerSockets) {
        /**
         * One connection in one sample: its peer, its socket inode ({@code ss -e}'s {@code ino:}) and {@code ss -i}'s
         * counters (bytes_received, data_segs_in...).
         */
        record Conn(String peer, String inode, Map<String, Long> counters) {
        }

        static Connections parse(List<String> lines) {
            List<Map<String, Conn>> samples = new ArrayList<>();
            List<Set<String>> sockets = new ArrayList<>();
            Map<String, Conn> current = null;
            String local = null;
            String peer = null;
            String inode = null;
            for (String line : lines) {
                if (line.equals("@")) {
                    current = new LinkedHashMap<>();
                    samples.add(current);
                    sockets.add(new HashSet<>());
                    local = null;
                } else if (current != null && line.startsWith("apiserver")) {
                    sockets.getLast().addAll(List.of(line.substring("apiserver".length()).strip().split("\\s+")));
                } else if (current != null && !line.isBlank() && !Character.isWhitespace(line.charAt(0))) {
                    String[] cols = line.strip().split("\\s+");
                    if (cols.length >= 4) {
                        local = cols[2];
                        peer = cols[3];
                        inode = "";
                        for (String col : cols) {
                            if (col.startsWith("ino:")) {
                                inode = col.substring(4);
                            }
                        }
                        current.put(local, new Conn(peer, inode, Map.of()));
                    }
                } else if (current != null && local != null && !line.isBlank()) {
                    Map<String, Long> counters = new HashMap<>();
                    for (String token : line.strip().split("\\s+")) {
                        int colon = token.indexOf(':');
                        if (colon > 0) {
                            try {
                                counters.put(token.substring(0, colon), Long.parseLong(token.substring(colon + 1)));
                            } catch (NumberFormatException e) {
                                // rtt:0.1/0.05, wscale:7,7 and the like: not a counter
                            }
                        }
                    }
                    current.put(local, new Conn(peer, inode, counters));
                    local = null;
                }
            }
            return new Connections(samples, sockets);
        }

        /**
         * What the API server's connections to {@code side}'s Pods did over the window: how many it held (all seen,
         * opened after the first sample, most open at once) and what it received and sent on them in the window. The
         * kubelet's probes, to the same addresses, are not the API server's and not counted.
         */
        Traffic to(WebhookSide side) {
            Set<String> addresses = new HashSet<>();
            side.pods().forEach(p -> addresses.add(p.ip() + ":" + p.port()));
            Set<String> first = new HashSet<>();
            Map<String, Conn> firstSeen = new HashMap<>();
            Map<String, Conn> lastSeen = new HashMap<>();
            int maxOpen = 0;
            for (int i = 0; i < samples.size(); i++) {
                int open = 0;
                for (Map.Entry<String, Conn> e : samples.get(i).entrySet()) {
                    if (!addresses.contains(e.getValue().peer())
                            || !apiServerSockets.get(i).contains(e.getValue().inode())) {
                        continue;
                    }
                    open++;
                    if (i == 0) {
                        first.add(e.getKey());
                    }
                    firstSeen.putIfAbsent(e.getKey(), e.getValue());
                    lastSeen.put(e.getKey(), e.getValue());
                }
                maxOpen = Math.max(maxOpen, open);
            }
            long received = 0;
            long segmentsIn = 0;
            long sent = 0;
            for (Map.Entry<String, Conn> e : lastSeen.entrySet()) {
                Map<String, Long> base = first.contains(e.getKey()) ? firstSeen.get(e.getKey()).counters() : Map.of();
                received += e.getValue().counters().getOrDefault("bytes_received", 0L) - base.getOrDefault("bytes_received", 0L);
                segmentsIn += e.getValue().counters().getOrDefault("data_segs_in", 0L) - base.getOrDefault("data_segs_in", 0L);
                sent += e.getValue().counters().getOrDefault("bytes_sent", 0L) - base.getOrDefault("bytes_sent", 0L);
            }
            return new Traffic(lastSeen.size(), lastSeen.size() - first.size(), maxOpen, received, segmentsIn, sent);
        }
    }

    /** {@link Connections#to}: connections seen, opened in the window, most at once; bytes and data segments. */
    record Traffic(int seen, int opened, int maxOpen, long bytesReceived, long dataSegmentsIn, long bytesSent) {
        String perCall(long calls) {
            return String.format(Locale.ROOT, "%d seen, %d new, %d at most; per call %.0f B in %.1f segs, %.0f B out",
                    seen, opened, maxOpen, calls == 0 ? 0.0 : (double) bytesReceived / calls,
                    calls == 0 ? 0.0 : (double) dataSegmentsIn / calls, calls == 0 ? 0.0 : (double) bytesSent / calls);
        }
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
