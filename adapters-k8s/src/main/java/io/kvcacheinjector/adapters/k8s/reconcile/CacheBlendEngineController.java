package io.kvcacheinjector.adapters.k8s.reconcile;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import io.kvcacheinjector.adapters.k8s.model.CacheBlendEngineResource;
import io.kvcacheinjector.domain.cacheblend.engine.EngineChildren;
import io.kvcacheinjector.ports.in.CacheBlendReconcileUseCase;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The Java Operator SDK reconciler of {@code CacheBlendEngine}: the engine as plain JSON values into the reconcile
 * use case, its status back as a JSON merge patch of the status subresource (field manager {@code kvcache-injector}). The
 * DaemonSets, Services and ConfigMaps the controller manages are watched (label
 * {@code app.kubernetes.io/managed-by=kvcache-injector}) and mapped to their engine by owner reference, so a change
 * to a child (a hand edit, the DaemonSet's ready count) reconciles its engine again.
 */
public final class CacheBlendEngineController implements Reconciler<CacheBlendEngineResource> {
    static final String MANAGED = "app.kubernetes.io/managed-by=" + EngineChildren.MANAGED_BY;

    private final CacheBlendReconcileUseCase useCase;
    private final Consumer<String> log;

    /** {@code log} receives one line per reconcile that applied or refused something. */
    public CacheBlendEngineController(CacheBlendReconcileUseCase useCase, Consumer<String> log) {
        this.useCase = Objects.requireNonNull(useCase, "useCase");
        this.log = Objects.requireNonNull(log, "log");
    }

    @Override
    @SuppressWarnings("unchecked")
    public UpdateControl<CacheBlendEngineResource> reconcile(CacheBlendEngineResource engine,
                                                             Context<CacheBlendEngineResource> context) {
        Map<String, Object> tree = Serialization.jsonMapper().convertValue(engine, Map.class);
        CacheBlendReconcileUseCase.Result result = useCase.reconcile(tree);
        String who = engine.getMetadata().getNamespace() + "/" + engine.getMetadata().getName();
        result.invalid().ifPresentOrElse(m -> log.accept("cacheblendengine " + who + " not reconciled: " + m),
                () -> log.accept("cacheblendengine " + who + " reconciled: " + String.join(", ", result.applied())
                        + "; phase " + result.status().get("phase")));
        CacheBlendEngineResource patch = new CacheBlendEngineResource();
        patch.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
                .withName(engine.getMetadata().getName())
                .withNamespace(engine.getMetadata().getNamespace())
                .build());
        patch.setStatus(Serialization.jsonMapper().convertValue(result.status(), CacheBlendEngineResource.Status.class));
        return UpdateControl.patchStatus(patch);
    }

    @Override
    public List<EventSource<?, CacheBlendEngineResource>> prepareEventSources(
            EventSourceContext<CacheBlendEngineResource> context) {
        return List.of(children(DaemonSet.class, context), children(Service.class, context),
                children(ConfigMap.class, context));
    }

    private static <R extends HasMetadata> EventSource<?, CacheBlendEngineResource> children(
            Class<R> kind, EventSourceContext<CacheBlendEngineResource> context) {
        InformerEventSourceConfiguration<R> config = InformerEventSourceConfiguration
                .from(kind, CacheBlendEngineResource.class)
                .withName(kind.getSimpleName().toLowerCase(java.util.Locale.ROOT))
                .withLabelSelector(MANAGED)
                .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(CacheBlendEngineResource.class))
                .withNamespacesInheritedFromController()
                .build();
        return new InformerEventSource<>(config, context);
    }
}
