package io.kvcacheinjector.ports.service;

import static io.kvcacheinjector.domain.kvcache.KvCacheKeys.*;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.kvcacheinjector.domain.flags.FlagHit;
import io.kvcacheinjector.domain.flags.FlagResolver;
import io.kvcacheinjector.domain.kvcache.InjectionRecord;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.KvCacheAnnotations;
import io.kvcacheinjector.domain.kvcache.KvCacheMessages;
import io.kvcacheinjector.domain.kvcache.KvCacheMutation;
import io.kvcacheinjector.domain.kvcache.KvCacheRequest;
import io.kvcacheinjector.domain.kvcache.Ledger;
import io.kvcacheinjector.domain.kvcache.Rendering;
import io.kvcacheinjector.domain.kvcache.Transports;
import io.kvcacheinjector.domain.kvcache.Vehicle;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import io.kvcacheinjector.domain.launch.LaunchAnalysis;
import io.kvcacheinjector.domain.launch.LaunchInput;
import io.kvcacheinjector.domain.launch.LaunchMessages;
import io.kvcacheinjector.domain.launch.LaunchResult;
import io.kvcacheinjector.domain.pod.Container;
import io.kvcacheinjector.domain.pod.EnvVar;
import io.kvcacheinjector.domain.pod.Pod;
import io.kvcacheinjector.domain.pod.PodReader;
import io.kvcacheinjector.domain.pod.PodReading;
import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.domain.pod.Volume;
import io.kvcacheinjector.domain.pod.VolumeMount;
import io.kvcacheinjector.ports.in.KvCacheMutateUseCase;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.Engines;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The kvcache mutate use case: the checks of docs/reference/kvcache-contract.md ("Order of checks"), one method per
 * step, the first failure answering; then the engine's rendering applied as one JSON Patch. A refused Pod gets no
 * patch at all. The words of every answer are {@link KvCacheMessages}'s.
 */
public final class KvCacheInjection implements KvCacheMutateUseCase {
    /** The key codes, in the order they are checked: catalogue order. */
    private static final List<ReasonCode> KEY_ORDER = List.of(ReasonCode.KEY_OWNED, ReasonCode.DTYPE_OWNED,
            ReasonCode.OFFLOADING_OVERRIDES_CONNECTOR, ReasonCode.VOLUME_OWNED, ReasonCode.CONFIG_SOURCE,
            ReasonCode.EXTERNAL_LINKER_CONFLICT);

    private final ClusterDirectoryPort directory;
    private final SettingsPort settings;
    private final Engines engines;

    public KvCacheInjection(ClusterDirectoryPort directory, SettingsPort settings, Engines engines) {
        this.directory = directory;
        this.settings = settings;
        this.engines = engines;
    }

    /** What one step gives the next, or the refusal that ends the decision. */
    private sealed interface Step<T> {
        record Next<T>(T value) implements Step<T> {
        }

        record Stop<T>(Decision.Refuse refusal) implements Step<T> {
        }
    }

    private static <T> Step<T> next(T value) {
        return new Step.Next<>(value);
    }

    private static <T> Step<T> stop(Decision.Refuse refusal) {
        return new Step.Stop<>(refusal);
    }

    /** The annotations read, with the engine they select and the namespace the Pod lives in. */
    private record Declared(KvCacheRequest request, Optional<String> manufacturer, EngineInjector engine, String namespace) {
        String runtimeSource() {
            return request.runtimeSource(manufacturer);
        }
    }

    /** The Binding, its pool and backend, the transport matched and whether a tenant is written. */
    private record Resolved(KvCachePoolBinding binding, KvCachePool pool, String protocol, boolean tenant) {
    }

    @Override
    public Decision mutate(String requestNamespace, ReceivedPod received) {
        // 1. the opt-in label on the object as received; nothing else is read for a Pod that does not opt in
        if (!optedIn(received.json())) {
            return Decision.Admit.unchanged();
        }
        Pod pod;
        switch (readPod(received, requestNamespace)) {
            case Step.Next<Pod> n -> pod = n.value();
            case Step.Stop<Pod> s -> {
                return s.refusal();
            }
        }
        Declared declared;
        switch (declared(pod, requestNamespace)) {
            case Step.Next<Declared> n -> declared = n.value();
            case Step.Stop<Declared> s -> {
                return s.refusal();
            }
        }
        Resolved resolved;
        switch (resolve(declared)) {
            case Step.Next<Resolved> n -> resolved = n.value();
            case Step.Stop<Resolved> s -> {
                return s.refusal();
            }
        }
        // the dtype Setting: the Binding's dtype is owned only when the Setting says so and the Binding declares one
        boolean dtypeOwned = settings.kvCacheDtypeOwned() && !resolved.binding().dtype().isEmpty();
        Container target;
        switch (target(pod, declared.request())) {
            case Step.Next<Container> n -> target = n.value();
            case Step.Stop<Container> s -> {
                return s.refusal();
            }
        }
        Optional<Decision.Refuse> keys = checkKeys(pod, target, declared, resolved.binding(), dtypeOwned);
        if (keys.isPresent()) {
            return keys.get();
        }
        LaunchResult.Admitted launch;
        switch (launch(target, declared)) {
            case Step.Next<LaunchResult.Admitted> n -> launch = n.value();
            case Step.Stop<LaunchResult.Admitted> s -> {
                return s.refusal();
            }
        }
        return inject(pod, target, declared, resolved, dtypeOwned, launch);
    }

    /** 2. The Pod read (or {@code pod-unreadable}), and not opted in to both contracts ({@code contracts-conflict}). */
    private static Step<Pod> readPod(ReceivedPod received, String requestNamespace) {
        Pod pod;
        switch (PodReader.read(received.json())) {
            case PodReading.Read r -> pod = r.pod();
            case PodReading.Unreadable u -> {
                return stop(KvCacheMessages.podUnreadable(u.problem()));
            }
        }
        if (pod.label(CACHEBLEND_LABEL).filter(v -> v.equals("true")).isPresent()) {
            return stop(KvCacheMessages.contractsConflict(pod.displayName(requestNamespace)));
        }
        return next(pod);
    }

    /** 3–5. The annotations, read against the installed engines' selectors. */
    private Step<Declared> declared(Pod pod, String requestNamespace) {
        switch (KvCacheAnnotations.read(pod, engines.selectable())) {
            case KvCacheAnnotations.Refused r -> {
                return stop(r.refusal());
            }
            case KvCacheAnnotations.Parsed p -> {
                String namespace = pod.namespace().filter(s -> !s.isEmpty())
                        .orElse(requestNamespace == null ? "" : requestNamespace);
                return next(new Declared(p.request(), p.manufacturer(), engines.get(p.request().runtimeId()), namespace));
            }
        }
    }

    /** 6–11. The Binding, its pool, the quota ledger, the backend, the endpoint and the transport. */
    private Step<Resolved> resolve(Declared declared) {
        String bindingRef = KvCacheMessages.bindingRef(declared.namespace(), declared.request().binding());
        if (directory.syncState() instanceof SyncState.NotSynced ns) {
            return stop(KvCacheMessages.notReady(bindingRef, ns.reason()));
        }
        KvCachePoolBinding binding;
        switch (directory.binding(declared.namespace(), declared.request().binding())) {
            case Lookup.Found<KvCachePoolBinding> f -> binding = f.value();
            case Lookup.NotFound<KvCachePoolBinding> n -> {
                return stop(KvCacheMessages.bindingNotFound(bindingRef));
            }
            case Lookup.Failed<KvCachePoolBinding> f -> {
                return stop(KvCacheMessages.notReady(bindingRef, f.reason()));
            }
        }
        if (binding.terminating()) {
            return stop(KvCacheMessages.bindingTerminating(bindingRef));
        }
        if (binding.poolName().isEmpty()) {
            return stop(KvCacheMessages.bindingNamesNoPool(bindingRef));
        }
        String poolName = binding.poolName().get();
        KvCachePool pool;
        switch (directory.pool(poolName)) {
            case Lookup.Found<KvCachePool> f -> pool = f.value();
            case Lookup.NotFound<KvCachePool> n -> {
                return stop(KvCacheMessages.poolNotFound(poolName, bindingRef));
            }
            case Lookup.Failed<KvCachePool> f -> {
                return stop(KvCacheMessages.notReady("KVCachePool " + poolName, f.reason()));
            }
        }
        Ledger ledger = Ledger.of(pool.quotaLedger());
        if (ledger instanceof Ledger.NotReady nr) {
            return stop(KvCacheMessages.ledgerNotReady(pool, nr.condition()));
        }
        if (pool.backends().isEmpty()) {
            return stop(KvCacheMessages.poolNamesNoBackend(poolName));
        }
        String backendName = pool.backends().get(0);
        KvCacheBackend backend;
        switch (directory.backend(backendName)) {
            case Lookup.Found<KvCacheBackend> f -> backend = f.value();
            case Lookup.NotFound<KvCacheBackend> n -> {
                return stop(KvCacheMessages.backendNotFound(backendName, poolName));
            }
            case Lookup.Failed<KvCacheBackend> f -> {
                return stop(KvCacheMessages.notReady("KVCacheBackend " + backendName, f.reason()));
            }
        }
        if (pool.clientEndpoint().isEmpty()) {
            return stop(KvCacheMessages.endpointNotPublished(poolName));
        }
        EngineInjector engine = declared.engine();
        List<String> offers = Transports.offers(backend);
        switch (Transports.match(offers, engine.requiredTransport().map(r -> r.artifact()))) {
            case Transports.Matched m -> {
                return next(new Resolved(binding, pool, m.protocol(), ledger instanceof Ledger.WithTenant));
            }
            case Transports.Mixed m -> {
                return stop(KvCacheMessages.transportMixed(engine.id() + " (" + engine.displayName() + ")", backendName,
                        poolName, m.distinct(), offers));
            }
            case Transports.Unsupported u -> {
                return stop(KvCacheMessages.transportUnsupported(engine.id(), declared.runtimeSource(), backendName,
                        poolName, offers, engine.requiredTransport()));
            }
        }
    }

    /** 13. The target container: the one named, or the only one. */
    private static Step<Container> target(Pod pod, KvCacheRequest request) {
        if (request.container().isPresent()) {
            String name = request.container().get();
            Optional<Container> c = pod.container(name);
            if (c.isPresent()) {
                return next(c.get());
            }
            boolean init = pod.initContainers().stream().anyMatch(i -> i.name().equals(name));
            return stop(init ? KvCacheMessages.containerIsInit(name, pod.containers())
                    : KvCacheMessages.containerNotFound(name, pod.containers()));
        }
        if (pod.containers().size() == 1) {
            return next(pod.containers().get(0));
        }
        return stop(pod.containers().isEmpty() ? KvCacheMessages.noContainers()
                : KvCacheMessages.containerAmbiguous(pod.containers()));
    }

    /**
     * 14–15. Owned keys, dtype, offloading, volumes and config sources, by code in catalogue order; within one code,
     * flags in argv order first, then env, then volumes.
     */
    private static Optional<Decision.Refuse> checkKeys(Pod pod, Container target, Declared declared,
                                                       KvCachePoolBinding binding, boolean dtypeOwned) {
        EngineInjector engine = declared.engine();
        List<WatchedKey> watched = engine.watchedKeys(dtypeOwned);
        List<String> flags = watched.stream().filter(w -> w.kind() == WatchedKey.Kind.FLAG).map(WatchedKey::name).toList();
        List<FlagHit> hits = FlagResolver.find(engine.flagGrammar(), target.command().orElse(List.of()),
                target.args().orElse(List.of()), flags);
        // an engine selected with a manufacturer is named with where it came from: vllm-ascend (engine vLLM with manufacturer ascend)
        String runtime = engine.id() + (engine.selector().manufacturer().isPresent() ? " (" + declared.runtimeSource() + ")" : "");
        for (ReasonCode code : KEY_ORDER) {
            for (FlagHit hit : hits) {
                WatchedKey key = keyFor(watched, hit.flag());
                if (key.code() != code) {
                    continue;
                }
                List<String> alsoReads = hits.stream().filter(h -> h.argvIndex() == hit.argvIndex())
                        .map(FlagHit::flag).filter(f -> !f.equals(hit.flag())).distinct().toList();
                String also = alsoReads.isEmpty() ? "" : " (the same token also reads as " + String.join(", ", alsoReads) + ")";
                return Optional.of(KvCacheMessages.keyFound(code, target, runtime,
                        hit.describe(engine.flagGrammar()) + also, key, binding));
            }
            for (WatchedKey key : watched) {
                if (key.code() == code && key.kind() == WatchedKey.Kind.ENV) {
                    for (EnvVar entry : target.envOrEmpty()) {
                        if (key.matches(entry)) {
                            return Optional.of(KvCacheMessages.keyFound(code, target, runtime, key.describe(entry), key,
                                    binding));
                        }
                    }
                }
            }
            if (code == ReasonCode.VOLUME_OWNED && engine.vehicle() == Vehicle.FILE) {
                Optional<Decision.Refuse> v = checkVolumes(pod, target);
                if (v.isPresent()) {
                    return v;
                }
            }
        }
        return Optional.empty();
    }

    private static WatchedKey keyFor(List<WatchedKey> watched, String flag) {
        for (WatchedKey w : watched) {
            if (w.kind() == WatchedKey.Kind.FLAG && w.name().equals(flag)) {
                return w;
            }
        }
        throw new IllegalStateException("resolver returned an unwatched flag " + flag);
    }

    /** The file vehicle's volume name and mount path must be free. */
    private static Optional<Decision.Refuse> checkVolumes(Pod pod, Container target) {
        for (Volume v : pod.volumesOrEmpty()) {
            if (v.name().equals(VOLUME_NAME)) {
                return Optional.of(KvCacheMessages.volumeNameTaken());
            }
        }
        for (VolumeMount m : target.mountsOrEmpty()) {
            if (m.name().equals(VOLUME_NAME)) {
                return Optional.of(KvCacheMessages.volumeMounted(target));
            }
            String p = m.mountPath();
            if (p.equals(MOUNT_PATH) || p.equals(MOUNT_PATH + "/") || p.startsWith(MOUNT_PATH + "/")) {
                return Optional.of(KvCacheMessages.mountPathTaken(target, m.name(), p));
            }
        }
        return Optional.empty();
    }

    /** 16. The launch: appended arguments must reach the declared engine's parser. */
    private Step<LaunchResult.Admitted> launch(Container target, Declared declared) {
        EngineInjector engine = declared.engine();
        LaunchResult launch = LaunchAnalysis.analyse(new LaunchInput(target.command(), target.args(),
                declared.request().forwardingDeclared(), engine.entryPoint(), engines.entryPoints()));
        return switch (launch) {
            case LaunchResult.Refused r -> stop(new Decision.Refuse(List.of(r.code()), LaunchMessages.kvcache(r,
                    target.name(), engine.id(), declared.runtimeSource(), engine.entryPoint())));
            case LaunchResult.Admitted a -> next(a);
        };
    }

    /** 17. The warnings, the engine's rendering and the patch. */
    private static Decision inject(Pod pod, Container target, Declared declared, Resolved resolved, boolean dtypeOwned,
                                   LaunchResult.Admitted launch) {
        EngineInjector engine = declared.engine();
        KvCachePoolBinding binding = resolved.binding();
        List<Warning> warnings = new ArrayList<>();
        for (String file : FlagResolver.configFiles(target.argv())) {
            warnings.add(KvCacheMessages.configFile(target, engine.id(), file, engine.configFileKeys()));
        }
        if (!target.envFrom().isEmpty()) {
            warnings.add(KvCacheMessages.envFrom(target, engine.envFromUnchecked()));
        }
        if (!resolved.tenant()) {
            warnings.add(KvCacheMessages.noTenant(resolved.pool().name(), binding.domain()));
        } else if (!engine.readsTenant()) {
            String runtime = engine.id() + (engine.selector().manufacturer().isPresent()
                    ? " (" + declared.runtimeSource() + ")" : "");
            warnings.add(KvCacheMessages.tenantUnread(target, runtime, engine.displayName(), resolved.pool().name(),
                    binding.domain()));
        }
        InjectionValues values = new InjectionValues(engine.readsRole() ? declared.request().role() : Optional.empty(),
                resolved.pool().clientEndpoint(), resolved.protocol(), binding.domain(), resolved.tenant(),
                dtypeOwned ? Optional.of(binding.dtype()) : Optional.empty());
        Rendering rendering = engine.render(values);
        InjectionRecord record = new InjectionRecord(declared.request().binding(), engine.id(), rendering.vehicle(),
                binding.domain(), resolved.tenant(), launch.launchProgram(), launch.argsForwarded());
        List<PatchOp> patch = KvCacheMutation.patch(pod, target, rendering, engine.flagGrammar(), record);
        return new Decision.Admit(patch, warnings);
    }

    /** The lenient label gate on the raw object: only {@code "true"} opts in. */
    static boolean optedIn(Object object) {
        if (object instanceof Map<?, ?> root && root.get("metadata") instanceof Map<?, ?> md
                && md.get("labels") instanceof Map<?, ?> labels) {
            return "true".equals(labels.get(LABEL_INJECT));
        }
        return false;
    }
}
