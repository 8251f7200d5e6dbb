package io.kvcacheinjector.ports.service;

import io.kvcacheinjector.domain.cacheblend.engine.EngineChildren;
import io.kvcacheinjector.domain.cacheblend.engine.EngineIdentity;
import io.kvcacheinjector.domain.cacheblend.engine.EngineRendering;
import io.kvcacheinjector.domain.cacheblend.engine.EngineSpec;
import io.kvcacheinjector.domain.cacheblend.engine.EngineSpecReader;
import io.kvcacheinjector.domain.cacheblend.engine.EngineStatus;
import io.kvcacheinjector.domain.cacheblend.engine.RenderContext;
import io.kvcacheinjector.ports.in.CacheBlendReconcileUseCase;
import io.kvcacheinjector.ports.out.EngineChildrenPort;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The reconcile of one {@code CacheBlendEngine}, in the documented order (docs/reference/cacheblend-engine.md):
 * defaults and validation (an invalid engine gets {@code Failed} and no child is touched), then every child applied
 * in order, then the status from the DaemonSet as the API server returned it.
 */
public final class CacheBlendEngineReconciler implements CacheBlendReconcileUseCase {
    private final EngineChildrenPort cluster;
    private final Clock clock;

    public CacheBlendEngineReconciler(EngineChildrenPort cluster, Clock clock) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public Result reconcile(Map<String, Object> engine) {
        EngineIdentity id = EngineIdentity.of(engine, "default");
        List<?> previous = previousConditions(engine);
        String now = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
        EngineSpecReader.Reading reading = EngineSpecReader.read(engine.get("spec"));
        if (reading instanceof EngineSpecReader.Invalid invalid) {
            String message = EngineRendering.message(id, invalid.problems());
            return new Result(EngineStatus.invalid(id.generation(), message, previous, now), List.of(),
                    Optional.of(message));
        }
        EngineSpec spec = ((EngineSpecReader.Valid) reading).spec();
        Optional<Map<String, String>> respData = Optional.empty();
        Optional<EngineSpec.SecretRef> ref = spec.l2().flatMap(EngineSpec.L2Backend::authSecret);
        if (ref.isPresent()) {
            String ns = ref.get().namespace().isEmpty() ? id.namespace() : ref.get().namespace();
            respData = cluster.secretData(ns, ref.get().name());
            if (respData.isEmpty()) {
                String message = id.display() + " cannot start: its RESP auth Secret " + ns + "/" + ref.get().name()
                        + " (spec.l2Backend.resp.authSecretRef) does not exist; create it with the key password, or"
                        + " remove authSecretRef";
                return new Result(EngineStatus.invalid(id.generation(), message, previous, now), List.of(),
                        Optional.of(message));
            }
        }
        RenderContext context = new RenderContext(spec.prometheus().serviceMonitor() && cluster.serviceMonitorServed(),
                respData);
        List<String> applied = new ArrayList<>();
        int desired = 0;
        int ready = 0;
        for (Map<String, Object> child : EngineChildren.render(id, spec, context)) {
            Map<String, Object> stored = cluster.apply(child);
            applied.add(child.get("kind") + "/" + name(child));
            if ("DaemonSet".equals(child.get("kind"))) {
                Map<?, ?> status = stored.get("status") instanceof Map<?, ?> s ? s : Map.of();
                desired = status.get("desiredNumberScheduled") instanceof Number n ? n.intValue() : 0;
                ready = status.get("numberReady") instanceof Number n ? n.intValue() : 0;
            }
        }
        return new Result(EngineStatus.valid(id.generation(), desired, ready, previous, now), applied,
                Optional.empty());
    }

    private static List<?> previousConditions(Map<String, Object> engine) {
        return engine.get("status") instanceof Map<?, ?> s && s.get("conditions") instanceof List<?> l ? l : List.of();
    }

    private static Object name(Map<String, Object> child) {
        return child.get("metadata") instanceof Map<?, ?> m ? m.get("name") : "";
    }
}
