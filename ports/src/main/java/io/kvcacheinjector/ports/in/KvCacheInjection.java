package io.kvcacheinjector.ports.in;

import static io.kvcacheinjector.domain.kvcache.KvCacheKeys.*;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.cluster.Condition;
import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.kvcacheinjector.domain.flags.FlagHit;
import io.kvcacheinjector.domain.flags.FlagResolver;
import io.kvcacheinjector.domain.json.Json;
import io.kvcacheinjector.domain.kvcache.InjectionRecord;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.KvCacheAnnotations;
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
import io.kvcacheinjector.domain.pod.EnvFromSource;
import io.kvcacheinjector.domain.pod.Pod;
import io.kvcacheinjector.domain.pod.PodReader;
import io.kvcacheinjector.domain.pod.PodReading;
import io.kvcacheinjector.domain.pod.Volume;
import io.kvcacheinjector.domain.pod.VolumeMount;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.Engines;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The kvcache mutate use case: the checks of docs/reference/kvcache-contract.md ("Order of checks") in order, the first failure answering, then the
 * engine's rendering applied as one JSON Patch. A refused Pod gets no patch at all.
 */
public final class KvCacheInjection implements KvCacheMutateUseCase {
    private final ClusterDirectoryPort directory;
    private final SettingsPort settings;
    private final Engines engines;

    public KvCacheInjection(ClusterDirectoryPort directory, SettingsPort settings, Engines engines) {
        this.directory = directory;
        this.settings = settings;
        this.engines = engines;
    }

    @Override
    public Decision mutate(String requestNamespace, Object object) {
        if (!optedIn(object)) {
            return Decision.Admit.unchanged();
        }
        PodReading reading = PodReader.read(object);
        Pod pod;
        switch (reading) {
            case PodReading.Read r -> pod = r.pod();
            case PodReading.Unreadable u -> {
                return refuse(ReasonCode.POD_UNREADABLE, "the object under review could not be read as a Pod ("
                        + u.problem() + "), so the webhook cannot show that an injection would take effect; correct the Pod's definition");
            }
        }
        if (pod.label(CACHEBLEND_LABEL).filter(v -> v.equals("true")).isPresent()) {
            return refuse(ReasonCode.CONTRACTS_CONFLICT, "Pod " + pod.displayName(requestNamespace) + " sets both "
                    + LABEL_INJECT + " and " + CACHEBLEND_LABEL
                    + " to \"true\", but each contract sets the engine's single KV connector (one --kv-transfer-config), so at most one of them could take effect; remove one of the two labels where the Pod is defined");
        }
        KvCacheRequest request;
        Optional<String> manufacturer;
        switch (KvCacheAnnotations.read(pod, engines.selectable())) {
            case KvCacheAnnotations.Refused r -> {
                return r.refusal();
            }
            case KvCacheAnnotations.Parsed p -> {
                request = p.request();
                manufacturer = p.manufacturer();
            }
        }
        String namespace = pod.namespace().filter(s -> !s.isEmpty()).orElse(requestNamespace == null ? "" : requestNamespace);
        EngineInjector engine = engines.get(request.runtimeId());

        // step 6: the Binding (its name is the Pod's text, quoted with control characters escaped)
        String bindingRef = "KVCachePoolBinding " + Json.quote(namespace + "/" + request.binding());
        if (directory.syncState() instanceof SyncState.NotSynced ns) {
            return notReady(bindingRef, ns.reason());
        }
        KvCachePoolBinding binding;
        switch (directory.binding(namespace, request.binding())) {
            case Lookup.Found<KvCachePoolBinding> f -> binding = f.value();
            case Lookup.NotFound<KvCachePoolBinding> n -> {
                return refuse(ReasonCode.BINDING_NOT_FOUND, bindingRef + " (named by " + BINDING
                        + ") does not exist in the Pod's namespace; create the Binding, or correct the name");
            }
            case Lookup.Failed<KvCachePoolBinding> f -> {
                return notReady(bindingRef, f.reason());
            }
        }
        if (binding.terminating()) {
            return refuse(ReasonCode.BINDING_TERMINATING, bindingRef
                    + " is being deleted, so its domain is being withdrawn and every cache write would fail (waiting will not fix it); wait for the deletion to finish and create a new Binding, or name a Binding that is not being deleted");
        }
        // step 7: the pool
        if (binding.poolName().isEmpty()) {
            return refuse(ReasonCode.POOL_NOT_FOUND, bindingRef
                    + " names no pool (spec.poolRef.name is empty); set poolRef on the Binding");
        }
        String poolName = binding.poolName().get();
        KvCachePool pool;
        switch (directory.pool(poolName)) {
            case Lookup.Found<KvCachePool> f -> pool = f.value();
            case Lookup.NotFound<KvCachePool> n -> {
                return refuse(ReasonCode.POOL_NOT_FOUND, "KVCachePool " + poolName + ", named by " + bindingRef
                        + " in spec.poolRef.name, does not exist; correct poolRef on the Binding, or create the pool");
            }
            case Lookup.Failed<KvCachePool> f -> {
                return notReady("KVCachePool " + poolName, f.reason());
            }
        }
        // step 8: the quota ledger
        Ledger ledger = Ledger.of(pool.quotaLedger());
        if (ledger instanceof Ledger.NotReady nr) {
            return refuse(ReasonCode.LEDGER_NOT_READY, ledgerText(pool, nr.condition()));
        }
        boolean tenant = ledger instanceof Ledger.WithTenant;
        // step 9: the backend
        if (pool.backends().isEmpty()) {
            return refuse(ReasonCode.BACKEND_NOT_FOUND, "KVCachePool " + poolName
                    + " names no backend (spec.backends is empty), so there is no store to connect to; set spec.backends on the pool");
        }
        String backendName = pool.backends().get(0);
        KvCacheBackend backend;
        switch (directory.backend(backendName)) {
            case Lookup.Found<KvCacheBackend> f -> backend = f.value();
            case Lookup.NotFound<KvCacheBackend> n -> {
                return refuse(ReasonCode.BACKEND_NOT_FOUND, "KVCacheBackend " + backendName + ", named by KVCachePool "
                        + poolName + " in spec.backends[0], does not exist; create the backend, or set spec.backends on the pool to one that exists");
            }
            case Lookup.Failed<KvCacheBackend> f -> {
                return notReady("KVCacheBackend " + backendName, f.reason());
            }
        }
        // step 10: the endpoint
        if (pool.clientEndpoint().isEmpty()) {
            return refuse(ReasonCode.ENDPOINT_NOT_PUBLISHED, "KVCachePool " + poolName
                    + " has not published status.clientEndpoint, so there is no master address to give the engine; wait for the pool to publish its client endpoint, and if it stays empty, check the pool's and the backend's status");
        }
        // step 11: the transport
        List<String> offers = Transports.offers(backend);
        Optional<EngineInjector.RequiredTransport> required = engine.requiredTransport();
        String protocol;
        switch (Transports.match(offers, required.map(EngineInjector.RequiredTransport::artifact))) {
            case Transports.Matched m -> protocol = m.protocol();
            case Transports.Mixed m -> {
                return refuse(ReasonCode.TRANSPORT_MIXED, "engine " + engine.id() + " (" + engine.displayName()
                        + ") runs one transport, but KVCacheBackend " + backendName + " of KVCachePool " + poolName
                        + " offers " + quoted(m.distinct()) + " across its member groups (effective offers in declaration order: "
                        + String.join(", ", offers.stream().map(o -> o.isEmpty() ? "(unknown)" : o).toList())
                        + "), and reading a block from a group on another transport fails with NotSupportedTransport; give the backend's spec.transport.protocol and every overriding group's transport.protocol one common value, or bind to a pool that offers a single transport");
            }
            case Transports.Unsupported u -> {
                return refuse(ReasonCode.TRANSPORT_UNSUPPORTED, unsupportedText(engine, manufacturer, request, backendName,
                        poolName, offers, required));
            }
        }
        // step 12: the dtype Setting
        boolean dtypeOwned = settings.kvCacheDtypeOwned() && !binding.dtype().isEmpty();
        // step 13: the container
        Container target;
        if (request.container().isPresent()) {
            String name = request.container().get();
            Optional<Container> c = pod.container(name);
            if (c.isEmpty()) {
                boolean init = pod.initContainers().stream().anyMatch(i -> i.name().equals(name));
                if (init) {
                    return refuse(ReasonCode.CONTAINER_IS_INIT, "container " + Json.quote(name) + " named by " + CONTAINER
                            + " is an init container, which exits before the engine starts; name an app container ("
                            + names(pod.containers()) + ")");
                }
                return refuse(ReasonCode.CONTAINER_NOT_FOUND, "container " + Json.quote(name) + " named by " + CONTAINER
                        + " is not a container of this Pod (app containers: " + names(pod.containers())
                        + "); correct the name");
            }
            target = c.get();
        } else if (pod.containers().size() == 1) {
            target = pod.containers().get(0);
        } else if (pod.containers().isEmpty()) {
            return refuse(ReasonCode.CONTAINER_NOT_FOUND, "the Pod has no containers, so there is no engine to configure; add the engine container");
        } else {
            return refuse(ReasonCode.CONTAINER_AMBIGUOUS, "the Pod has " + pod.containers().size() + " containers ("
                    + names(pod.containers()) + ") and " + CONTAINER
                    + " is not set; the first one is never chosen, because configuring a sidecar would leave the engine uncached; set "
                    + CONTAINER + " to the container that runs the engine");
        }
        // steps 14-15: owned keys, dtype, offloading, volumes, config sources
        Optional<Decision.Refuse> keyRefusal = checkKeys(pod, target, engine, request, manufacturer, binding, dtypeOwned);
        if (keyRefusal.isPresent()) {
            return keyRefusal.get();
        }
        // step 16: launch
        LaunchResult launch = LaunchAnalysis.analyse(new LaunchInput(target.command(), target.args(),
                request.forwardingDeclared(), engine.entryPoint(), engines.entryPoints()));
        String launchProgram;
        boolean forwarded;
        switch (launch) {
            case LaunchResult.Refused r -> {
                return new Decision.Refuse(List.of(r.code()), LaunchMessages.kvcache(r, target.name(), engine.id(),
                        request.runtimeSource(manufacturer), engine.entryPoint()));
            }
            case LaunchResult.Admitted a -> {
                launchProgram = a.launchProgram();
                forwarded = a.argsForwarded();
            }
        }
        List<Warning> warnings = new ArrayList<>();
        for (String file : FlagResolver.configFiles(target.argv())) {
            warnings.add(new Warning(ReasonCode.WARN_CONFIG_FILE, "warn-config-file: container " + Json.quote(target.name())
                    + " (" + engine.id() + ") loads --config " + Json.quote(file)
                    + ", which admission cannot read; " + engine.configFileKeys()));
        }
        if (!target.envFrom().isEmpty()) {
            warnings.add(new Warning(ReasonCode.WARN_ENVFROM, "warn-envfrom: container " + Json.quote(target.name())
                    + " has envFrom (" + target.envFrom().stream().map(EnvFromSource::describe).collect(Collectors.joining(", "))
                    + "); injected variables override the same names there, and " + engine.envFromUnchecked()
                    + " there are not checked; declare Mooncake variables in env"));
        }
        if (!tenant) {
            warnings.add(new Warning(ReasonCode.WARN_NO_TENANT, "warn-no-tenant: KVCachePool " + poolName
                    + " has multi-tenancy disabled, so domain " + Json.quote(binding.domain())
                    + " was not written as a tenant; enable tenant separation on the backend if isolation is intended"));
        }
        // step 17: mutate
        InjectionValues values = new InjectionValues(engine.readsRole() ? request.role() : Optional.empty(), pool.clientEndpoint(), protocol, binding.domain(), tenant,
                dtypeOwned ? Optional.of(binding.dtype()) : Optional.empty());
        Rendering rendering = engine.render(values);
        InjectionRecord record = new InjectionRecord(request.binding(), engine.id(), rendering.vehicle(), binding.domain(),
                tenant, launchProgram, forwarded);
        List<PatchOp> patch = KvCacheMutation.patch(pod, target, rendering, engine.flagGrammar(), record);
        return new Decision.Admit(patch, warnings);
    }

    private Optional<Decision.Refuse> checkKeys(Pod pod, Container target, EngineInjector engine, KvCacheRequest request,
                                                Optional<String> manufacturer, KvCachePoolBinding binding, boolean dtypeOwned) {
        List<WatchedKey> watched = engine.watchedKeys(dtypeOwned);
        List<String> flags = watched.stream().filter(w -> w.kind() == WatchedKey.Kind.FLAG).map(WatchedKey::name).toList();
        List<FlagHit> hits = FlagResolver.find(engine.flagGrammar(), target.command().orElse(List.of()),
                target.args().orElse(List.of()), flags);
        // an engine selected with a manufacturer is named with where it came from: vllm-ascend (engine vLLM with manufacturer ascend)
        String runtime = engine.id() + (engine.selector().manufacturer().isPresent() ? " (" + request.runtimeSource(manufacturer) + ")" : "");
        // codes in catalogue order; within one code, flags in argv order first, then env, then volumes
        List<ReasonCode> order = List.of(ReasonCode.KEY_OWNED, ReasonCode.DTYPE_OWNED, ReasonCode.OFFLOADING_OVERRIDES_CONNECTOR,
                ReasonCode.VOLUME_OWNED, ReasonCode.CONFIG_SOURCE);
        for (ReasonCode code : order) {
            for (FlagHit hit : hits) {
                WatchedKey key = keyFor(watched, hit.flag());
                if (key.code() != code) {
                    continue;
                }
                List<String> alsoReads = hits.stream().filter(h -> h.argvIndex() == hit.argvIndex())
                        .map(FlagHit::flag).filter(f -> !f.equals(hit.flag())).distinct().toList();
                String also = alsoReads.isEmpty() ? "" : " (the same token also reads as " + String.join(", ", alsoReads) + ")";
                return Optional.of(refuseKey(code, target, runtime, hit.describe(engine.flagGrammar().engineName()) + also,
                        key, binding));
            }
            for (WatchedKey key : watched) {
                if (key.code() == code && key.kind() == WatchedKey.Kind.ENV && target.hasEnv(key.name())) {
                    return Optional.of(refuseKey(code, target, runtime, "env " + key.name(), key, binding));
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

    private static Decision.Refuse refuseKey(ReasonCode code, Container target, String runtime, String found, WatchedKey key,
                                             KvCachePoolBinding binding) {
        String fix = switch (code) {
            case KEY_OWNED -> "remove it from the container, or, if the container manages its own cache, drop the " + LABEL_INJECT + " label";
            case DTYPE_OWNED -> "remove it and name a Binding that declares the dtype you want (KVCachePoolBinding "
                    + binding.namespace() + "/" + binding.name() + " declares " + Json.quote(binding.dtype())
                    + "), or turn the Setting model-deployment-kv-cache-dtype-owned off (operator-wide), which keeps the container's own flag";
            case OFFLOADING_OVERRIDES_CONNECTOR -> "remove it, because node-local offloading and the shared pool are alternatives; to keep offloading, drop the " + LABEL_INJECT + " label";
            case CONFIG_SOURCE -> "remove it; the store settings come from the Binding and its pool";
            default -> "remove it";
        };
        return new Decision.Refuse(List.of(code), code.id() + ": container " + Json.quote(target.name()) + " (" + runtime
                + ") sets " + found + ", and " + key.consequence() + "; " + fix + ".");
    }

    private static Optional<Decision.Refuse> checkVolumes(Pod pod, Container target) {
        for (Volume v : pod.volumesOrEmpty()) {
            if (v.name().equals(VOLUME_NAME)) {
                return Optional.of(refuse(ReasonCode.VOLUME_OWNED, "the Pod declares a volume named " + Json.quote(VOLUME_NAME)
                        + ", which this webhook writes for the projected client configuration; rename your volume"));
            }
        }
        for (VolumeMount m : target.mountsOrEmpty()) {
            if (m.name().equals(VOLUME_NAME)) {
                return Optional.of(refuse(ReasonCode.VOLUME_OWNED, "container " + Json.quote(target.name()) + " mounts a volume named "
                        + Json.quote(VOLUME_NAME) + ", which this webhook writes; rename your volume"));
            }
            String p = m.mountPath();
            if (p.equals(MOUNT_PATH) || p.equals(MOUNT_PATH + "/") || p.startsWith(MOUNT_PATH + "/")) {
                return Optional.of(refuse(ReasonCode.VOLUME_OWNED, "container " + Json.quote(target.name()) + " mounts volume "
                        + Json.quote(m.name()) + " at " + Json.quote(p) + ", where this webhook mounts the projected client configuration ("
                        + FILE_PATH + "); move your mount"));
            }
        }
        return Optional.empty();
    }

    private static String ledgerText(KvCachePool pool, Optional<Condition> condition) {
        if (condition.isEmpty()) {
            return "KVCachePool " + pool.name()
                    + " has not published its QuotaLedgerAvailable condition, so it is undecided whether writes to its domains would be accepted; wait until the pool reports it";
        }
        Condition c = condition.get();
        if (c.status().equals("False")) {
            return "KVCachePool " + pool.name() + " reports QuotaLedgerAvailable=False, reason " + Json.quote(c.reason())
                    + ", message " + Json.quote(c.message())
                    + ", so every cache write would be rejected; repair what the reason names (LedgerUnreachable means the master could not be reached: restore the master)";
        }
        return "KVCachePool " + pool.name() + " reports QuotaLedgerAvailable=" + Json.quote(c.status())
                + " (reason " + Json.quote(c.reason()) + "), so it is undecided whether writes would be accepted; wait until the pool reports it";
    }

    private static String unsupportedText(EngineInjector engine, Optional<String> manufacturer, KvCacheRequest request,
                                          String backendName, String poolName, List<String> offers,
                                          Optional<EngineInjector.RequiredTransport> required) {
        String offered = String.join(", ", offers.stream().map(o -> o.isEmpty() ? "(unknown enum value)" : o).toList());
        if (required.isPresent()) {
            EngineInjector.RequiredTransport r = required.get();
            return "engine " + engine.id() + " (" + request.runtimeSource(manufacturer) + ") requires transport " + r.artifact()
                    + " (measured at " + r.measuredAt() + "), but KVCacheBackend " + backendName + " of KVCachePool " + poolName
                    + " offers " + offered + ", so the container would fail to start; set " + r.api()
                    + " (API spelling) on the backend's spec.transport.protocol, or on one member group's transport.protocol (an unset protocol is Auto, which resolves to tcp), or bind to a pool that offers "
                    + r.artifact();
        }
        return "KVCacheBackend " + backendName + " of KVCachePool " + poolName + " offers only transports this webhook does not know ("
                + offered + "), so engine " + engine.id() + " would be given no usable protocol; set spec.transport.protocol on the backend to a known value (TCP, RDMA, EFA, CANN, ROCM, MUSA, MACA)";
    }

    private static String quoted(List<String> values) {
        return values.stream().collect(Collectors.joining(", "));
    }

    private static String names(List<Container> containers) {
        return containers.stream().map(c -> Json.quote(c.name())).collect(Collectors.joining(", "));
    }

    private static Decision.Refuse notReady(String what, String reason) {
        return refuse(ReasonCode.CLUSTER_NOT_READY, "the webhook could not read " + what + " (" + reason
                + "), and it refuses rather than guess; retry (a workload controller retries by itself, a bare Pod must be created again), and if the refusal persists, check the webhook's readiness and its read permissions");
    }

    private static Decision.Refuse refuse(ReasonCode code, String text) {
        return new Decision.Refuse(List.of(code), code.id() + ": " + text + ".");
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
