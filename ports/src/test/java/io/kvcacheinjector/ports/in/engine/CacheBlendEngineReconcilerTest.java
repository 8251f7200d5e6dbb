package io.kvcacheinjector.ports.in.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvcacheinjector.ports.service.CacheBlendEngineReconciler;
import io.kvcacheinjector.ports.in.CacheBlendReconcileUseCase.Result;
import io.kvcacheinjector.ports.out.EngineChildrenPort;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The reconcile order and the status it reports, against a small in-memory cluster. */
class CacheBlendEngineReconcilerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

    /** Stores what is applied; a DaemonSet comes back with the status the test sets. */
    static final class Cluster implements EngineChildrenPort {
        final List<Map<String, Object>> applied = new ArrayList<>();
        final Map<String, Map<String, String>> secrets = new HashMap<>();
        boolean serviceMonitors;
        Map<String, Object> daemonSetStatus = Map.of();

        @Override
        public boolean serviceMonitorServed() {
            return serviceMonitors;
        }

        @Override
        public Optional<Map<String, String>> secretData(String namespace, String name) {
            return Optional.ofNullable(secrets.get(namespace + "/" + name));
        }

        @Override
        public Map<String, Object> apply(Map<String, Object> child) {
            applied.add(child);
            Map<String, Object> stored = new LinkedHashMap<>(child);
            if ("DaemonSet".equals(child.get("kind"))) {
                stored.put("status", daemonSetStatus);
            }
            return stored;
        }

        List<String> kinds() {
            return applied.stream().map(c -> c.get("kind") + "/" + ((Map<?, ?>) c.get("metadata")).get("name")).toList();
        }
    }

    private final Cluster cluster = new Cluster();
    private final CacheBlendEngineReconciler reconciler = new CacheBlendEngineReconciler(cluster, CLOCK);

    @SuppressWarnings("unchecked")
    private static Map<String, Object> engine(String spec) throws Exception {
        return JSON.readValue("""
                {"apiVersion": "lmcache.lmcache.ai/v1alpha1", "kind": "CacheBlendEngine",
                 "metadata": {"name": "cb", "namespace": "ns", "uid": "u-1", "generation": 7},
                 "spec": %s}""".formatted(spec), Map.class);
    }

    private static final String VALID = """
            {"l1": {"sizeGB": 60}, "injection": {"payloadImage": {"repository": "tensormesh/cacheblend-plugin"}}}""";

    @Test
    void appliesEveryChildInOrderAndReportsTheDaemonSetsInstances() throws Exception {
        cluster.daemonSetStatus = Map.of("desiredNumberScheduled", 3, "numberReady", 2);
        Result r = reconciler.reconcile(engine(VALID));
        assertThat(cluster.kinds()).containsExactly("DaemonSet/cb", "Service/cb", "Service/cb-metrics",
                "ConfigMap/cb-connection");
        assertThat(r.applied()).isEqualTo(cluster.kinds());
        assertThat(r.invalid()).isEmpty();
        assertThat(r.status()).containsEntry("phase", "Degraded").containsEntry("observedGeneration", 7L)
                .containsEntry("desiredInstances", 3L).containsEntry("readyInstances", 2L);
        assertThat(cluster.applied).allSatisfy(c -> assertThat(c.toString()).contains("uid=u-1", "controller=true"));
    }

    @Test
    void anInvalidEngineIsFailedAndNothingIsApplied() throws Exception {
        Result r = reconciler.reconcile(engine("{\"injection\": {}}"));
        assertThat(cluster.applied).isEmpty();
        assertThat(r.status()).containsEntry("phase", "Failed");
        assertThat(r.invalid()).get().asString().contains("CacheBlendEngine ns/cb is invalid: spec.l1.sizeGB is missing",
                "spec.injection.payloadImage.repository is missing");
    }

    @Test
    void theRespAuthSecretIsCopiedFirstAndAMissingOneStopsTheReconcileWithItsName() throws Exception {
        String spec = """
                {"l1": {"sizeGB": 60}, "injection": {"payloadImage": {"repository": "p"}},
                 "l2Backend": {"resp": {"host": "redis", "authSecretRef": {"name": "redis-auth", "namespace": "cache"}}}}""";
        Result missing = reconciler.reconcile(engine(spec));
        assertThat(cluster.applied).isEmpty();
        assertThat(missing.invalid()).get().asString().contains("RESP auth Secret cache/redis-auth", "does not exist");
        cluster.secrets.put("cache/redis-auth", Map.of("password", "c2VjcmV0"));
        reconciler.reconcile(engine(spec));
        assertThat(cluster.kinds()).first().isEqualTo("Secret/cb-resp-auth");
        assertThat(cluster.applied.get(0)).containsEntry("data", Map.of("password", "c2VjcmV0"));
    }

    @Test
    void aServiceMonitorIsAppliedOnlyWhereItsCrdIsServed() throws Exception {
        String spec = """
                {"l1": {"sizeGB": 60}, "injection": {"payloadImage": {"repository": "p"}},
                 "prometheus": {"serviceMonitor": {"enabled": true}}}""";
        reconciler.reconcile(engine(spec));
        assertThat(cluster.kinds()).doesNotContain("ServiceMonitor/cb");
        cluster.serviceMonitors = true;
        cluster.applied.clear();
        reconciler.reconcile(engine(spec));
        assertThat(cluster.kinds()).last().isEqualTo("ServiceMonitor/cb");
    }

    @Test
    void conditionsKeepTheirTransitionTimeAcrossReconciles() throws Exception {
        Map<String, Object> engine = engine(VALID);
        Result first = reconciler.reconcile(engine);
        engine.put("status", first.status());
        Result second = new CacheBlendEngineReconciler(cluster,
                Clock.offset(CLOCK, java.time.Duration.ofMinutes(5))).reconcile(engine);
        assertThat(second.status().get("conditions").toString()).contains("lastTransitionTime=2026-01-01T00:00:00Z")
                .doesNotContain("00:05:00");
    }
}
