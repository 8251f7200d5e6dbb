package io.kvcacheinjector.domain.cacheblend.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code status} the controller writes (docs/reference/cacheblend-engine.md "Status"): {@code phase},
 * {@code observedGeneration}, {@code desiredInstances}, {@code readyInstances} and the conditions
 * {@code ConfigValid}, {@code Available} and {@code AllInstancesReady}. A condition keeps its
 * {@code lastTransitionTime} while its status does not change.
 */
public final class EngineStatus {
    public static final String PENDING = "Pending";
    public static final String RUNNING = "Running";
    public static final String DEGRADED = "Degraded";
    public static final String FAILED = "Failed";

    private EngineStatus() {
    }

    /**
     * The status of a valid engine whose DaemonSet wants {@code desired} Pods and has {@code ready} of them ready.
     * {@code previous} is the current {@code status.conditions} (empty when none), {@code now} an RFC 3339 time.
     */
    public static Map<String, Object> valid(long generation, int desired, int ready, List<?> previous, String now) {
        String phase = desired == 0 || ready == 0 ? PENDING : ready < desired ? DEGRADED : RUNNING;
        String counts = ready + "/" + desired + " instances ready";
        List<Object> conditions = new ArrayList<>();
        conditions.add(condition(previous, now, generation, "ConfigValid", true, "Valid", "the spec is valid"));
        conditions.add(condition(previous, now, generation, "Available", ready > 0,
                ready > 0 ? "AtLeastOneReady" : "NoReadyInstances", counts));
        boolean all = desired > 0 && ready >= desired;
        conditions.add(condition(previous, now, generation, "AllInstancesReady", all,
                all ? "AllReady" : "NotAllReady", counts));
        return status(generation, phase, desired, ready, conditions);
    }

    /** The status of an engine whose spec failed validation with {@code message}. */
    public static Map<String, Object> invalid(long generation, String message, List<?> previous, String now) {
        List<Object> conditions = new ArrayList<>();
        conditions.add(condition(previous, now, generation, "ConfigValid", false, "ValidationFailed", message));
        return status(generation, FAILED, 0, 0, conditions);
    }

    private static Map<String, Object> status(long generation, String phase, int desired, int ready,
                                              List<Object> conditions) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("phase", phase);
        s.put("observedGeneration", generation);
        s.put("desiredInstances", (long) desired);
        s.put("readyInstances", (long) ready);
        s.put("conditions", conditions);
        return s;
    }

    private static Map<String, Object> condition(List<?> previous, String now, long generation, String type,
                                                 boolean status, String reason, String message) {
        String value = status ? "True" : "False";
        String since = now;
        for (Object o : previous) {
            if (o instanceof Map<?, ?> m && type.equals(m.get("type")) && value.equals(m.get("status"))
                    && m.get("lastTransitionTime") instanceof String t && !t.isEmpty()) {
                since = t;
            }
        }
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("type", type);
        c.put("status", value);
        c.put("reason", reason);
        c.put("message", message);
        c.put("lastTransitionTime", since);
        c.put("observedGeneration", generation);
        return c;
    }
}
