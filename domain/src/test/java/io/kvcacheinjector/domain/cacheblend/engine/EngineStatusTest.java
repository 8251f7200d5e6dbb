package io.kvcacheinjector.domain.cacheblend.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@code kubectl get cacheblendengine} shows: phase, counts, conditions and when each last changed. */
class EngineStatusTest {
    private static final String T0 = "2026-01-01T00:00:00Z";
    private static final String T1 = "2026-01-01T00:05:00Z";

    @Test
    void noReadyInstanceIsPendingAllReadyIsRunningSomeReadyIsDegraded() {
        assertThat(EngineStatus.valid(1, 0, 0, List.of(), T0)).containsEntry("phase", "Pending");
        assertThat(EngineStatus.valid(1, 2, 0, List.of(), T0)).containsEntry("phase", "Pending");
        assertThat(EngineStatus.valid(1, 2, 1, List.of(), T0)).containsEntry("phase", "Degraded");
        Map<String, Object> running = EngineStatus.valid(4, 2, 2, List.of(), T0);
        assertThat(running).containsEntry("phase", "Running").containsEntry("observedGeneration", 4L)
                .containsEntry("desiredInstances", 2L).containsEntry("readyInstances", 2L);
        assertThat(condition(running, "Available")).containsEntry("status", "True")
                .containsEntry("reason", "AtLeastOneReady").containsEntry("message", "2/2 instances ready");
        assertThat(condition(running, "AllInstancesReady")).containsEntry("reason", "AllReady");
        assertThat(condition(running, "ConfigValid")).containsEntry("status", "True").containsEntry("reason", "Valid");
    }

    @Test
    void anInvalidSpecIsFailedWithConfigValidFalseAndTheMessage() {
        Map<String, Object> s = EngineStatus.invalid(2, "CacheBlendEngine ns/cb is invalid: x", List.of(), T0);
        assertThat(s).containsEntry("phase", "Failed");
        assertThat(condition(s, "ConfigValid")).containsEntry("status", "False")
                .containsEntry("reason", "ValidationFailed").containsEntry("message", "CacheBlendEngine ns/cb is invalid: x");
    }

    @Test
    void aConditionKeepsItsTransitionTimeUntilItsStatusChanges() {
        Map<String, Object> first = EngineStatus.valid(1, 1, 0, List.of(), T0);
        Map<String, Object> same = EngineStatus.valid(1, 1, 0, (List<?>) first.get("conditions"), T1);
        assertThat(condition(same, "Available")).containsEntry("lastTransitionTime", T0);
        Map<String, Object> changed = EngineStatus.valid(1, 1, 1, (List<?>) first.get("conditions"), T1);
        assertThat(condition(changed, "Available")).containsEntry("lastTransitionTime", T1);
        assertThat(condition(changed, "ConfigValid")).containsEntry("lastTransitionTime", T0);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> condition(Map<String, Object> status, String type) {
        return ((List<Map<String, Object>>) status.get("conditions")).stream()
                .filter(c -> type.equals(c.get("type"))).findFirst().orElseThrow();
    }
}
