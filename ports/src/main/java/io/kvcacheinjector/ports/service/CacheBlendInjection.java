package io.kvcacheinjector.ports.service;

import io.kvcacheinjector.domain.text.MessageText;
import io.kvcacheinjector.ports.in.CacheBlendMutateUseCase;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.cacheblend.CacheBlendArgs;
import io.kvcacheinjector.domain.cacheblend.CacheBlendKeys;
import io.kvcacheinjector.domain.cacheblend.CacheBlendMessages;
import io.kvcacheinjector.domain.cacheblend.CacheBlendMutation;
import io.kvcacheinjector.domain.cacheblend.CacheBlendSkip;
import io.kvcacheinjector.domain.cacheblend.ConnectionConfig;
import io.kvcacheinjector.domain.cacheblend.ConnectionKey;
import io.kvcacheinjector.domain.cacheblend.EngineReference;
import io.kvcacheinjector.domain.cacheblend.TargetContainer;
import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.cluster.ConfigMapData;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.domain.cluster.NamespaceLabels;
import io.kvcacheinjector.domain.cluster.SyncState;
import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.flags.FlagHit;
import io.kvcacheinjector.domain.flags.FlagResolver;
import io.kvcacheinjector.domain.launch.EntryPoint;
import io.kvcacheinjector.domain.launch.LaunchAnalysis;
import io.kvcacheinjector.domain.launch.LaunchInput;
import io.kvcacheinjector.domain.launch.LaunchMessages;
import io.kvcacheinjector.domain.launch.LaunchResult;
import io.kvcacheinjector.domain.pod.Container;
import io.kvcacheinjector.domain.json.Json;
import io.kvcacheinjector.domain.pod.Volume;
import io.kvcacheinjector.domain.pod.VolumeMount;
import io.kvcacheinjector.domain.pod.Pod;
import io.kvcacheinjector.domain.pod.PodReader;
import io.kvcacheinjector.domain.pod.PodReading;
import io.kvcacheinjector.domain.pod.ReceivedPod;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.spi.EngineCapability;
import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.Engines;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The CacheBlend mutate use case (docs/reference/cacheblend-injection.md): every check in order, the first failure answering, and
 * only then the full injection as one JSON Patch. A failed check is a skip (the Pod is admitted with only the
 * skip-reason annotation and a warning), or a refusal under the fail-closed switch. Nothing outside the named
 * namespace is read before the allow-list says it may be.
 *
 * <p>Order: a Pod without the opt-in label, or in an excluded namespace, is admitted unchanged (as the webhook's
 * selectors would never send it); an unreadable Pod is refused; both opt-in labels are refused; an already injected
 * Pod is admitted unchanged; then {@code engine-ref-invalid}, {@code engine-ref-forbidden}, {@code pd-role-invalid},
 * the engine ({@code engine-not-found}), its ConfigMap ({@code connection-missing}, {@code connection-invalid}), any
 * failed read ({@code lookup-failed}), {@code target-container-not-found}, {@code launch-unproven},
 * {@code kv-transfer-config-present}, {@code payload-image-unset}. An injected Pod then gets, after the warnings of
 * the mutation, this project's two advisory warnings: {@code warn-namespace-not-privileged} (the Pod's Namespace, as
 * the view knows it, enforces a Pod Security level other than {@code privileged}) and {@code warn-images-mismatched}
 * (the engine's own image tag differs from its payload tag).
 */
public final class CacheBlendInjection implements CacheBlendMutateUseCase {
    private static final String ENGINE_KIND = "CacheBlendEngine ";
    private static final String CONFIGMAP_KIND = "ConfigMap ";

    private final ClusterDirectoryPort directory;
    private final Optional<EngineInjector> engine;
    private final List<EntryPoint> entryPoints;
    private final CacheBlendSettings settings;

    /**
     * The use case over the installed engines: the engine that declares {@link EngineCapability#CACHEBLEND} reads the
     * appended flags and its entry point is the launch a CacheBlend Pod must show. Without such an engine no Pod can
     * be injected; the application refuses to start that way unless the contract is disabled (then no CacheBlend
     * lookup succeeds, and a Pod that would get this far is skipped naming the missing engine).
     */
    public CacheBlendInjection(ClusterDirectoryPort directory, Engines engines, CacheBlendSettings settings) {
        this.directory = Objects.requireNonNull(directory, "directory");
        this.engine = engines.withCapability(EngineCapability.CACHEBLEND);
        this.entryPoints = engines.entryPoints();
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    @Override
    public Decision mutate(String requestNamespace, ReceivedPod received) {
        Object object = received.json();
        if (!CacheBlendKeys.isTrue(rawLabel(object, CacheBlendKeys.LABEL_INJECT))) {
            return Decision.Admit.unchanged();
        }
        String rawNamespace = requestNamespace != null && !requestNamespace.isEmpty()
                ? requestNamespace : Optional.ofNullable(rawNamespace(object)).orElse("");
        if (settings.excludedNamespaces().contains(rawNamespace)) {
            return Decision.Admit.unchanged();
        }
        Pod pod;
        switch (PodReader.read(object)) {
            case PodReading.Read r -> pod = r.pod();
            case PodReading.Unreadable u -> {
                return new Decision.Refuse(ReasonCode.POD_UNREADABLE, CacheBlendMessages.podUnreadable(u.problem()));
            }
        }
        String namespace = requestNamespace != null && !requestNamespace.isEmpty()
                ? requestNamespace : pod.namespace().orElse("");
        String podName = pod.displayName(namespace);
        if (pod.label(CacheBlendKeys.KVCACHE_LABEL_INJECT).filter(CacheBlendKeys::isTrue).isPresent()) {
            return new Decision.Refuse(ReasonCode.CONTRACTS_CONFLICT, CacheBlendMessages.contractsConflict(podName));
        }
        if (pod.annotation(CacheBlendKeys.INJECTED).filter(CacheBlendKeys::isTrue).isPresent()) {
            return Decision.Admit.unchanged();
        }
        return decide(pod, namespace, podName);
    }

    private Decision decide(Pod pod, String namespace, String podName) {
        // 3. engine-ref-invalid
        EngineReference ref;
        switch (EngineReference.parse(pod.annotation(CacheBlendKeys.ENGINE).orElse(null), namespace)) {
            case EngineReference.Parsed p -> ref = p.reference();
            case EngineReference.Invalid i -> {
                return skip(pod, CacheBlendMessages.engineRefInvalid(podName, i.problem()));
            }
        }
        // 4. engine-ref-forbidden, before anything in that namespace is read
        if (!ref.namespace().equals(namespace) && !settings.allowedNamespaces().contains(ref.namespace())) {
            return skip(pod, CacheBlendMessages.engineRefForbidden(podName, namespace, ref,
                    settings.allowedNamespaces()));
        }
        // pd-role-invalid: a Pod-only check, made before any read
        String connectionKey;
        switch (ConnectionKey.select(pod.annotation(CacheBlendKeys.PD_ROLE).orElse(null))) {
            case ConnectionKey.Selected s -> connectionKey = s.key();
            case ConnectionKey.InvalidRole r -> {
                return skip(pod, CacheBlendMessages.pdRoleInvalid(podName, r.value()));
            }
        }
        // 5. engine-not-found (lookup-failed when the view cannot answer)
        String engineRef = ENGINE_KIND + ref.qualified();
        if (directory.syncState() instanceof SyncState.NotSynced ns) {
            return skip(pod, CacheBlendMessages.lookupFailed(engineRef, "the webhook's cluster view has not synced: "
                    + ns.reason()));
        }
        CacheBlendEngine cacheBlendEngine;
        switch (directory.cacheBlendEngine(ref.namespace(), ref.name())) {
            case Lookup.Found<CacheBlendEngine> f -> cacheBlendEngine = f.value();
            case Lookup.NotFound<CacheBlendEngine> n -> {
                return skip(pod, CacheBlendMessages.engineNotFound(podName, ref));
            }
            case Lookup.Failed<CacheBlendEngine> f -> {
                return skip(pod, CacheBlendMessages.lookupFailed(engineRef, f.reason()));
            }
        }
        // 6. connection-missing
        String configMapName = CacheBlendKeys.connectionName(ref.name());
        ConfigMapData configMap;
        switch (directory.configMap(ref.namespace(), configMapName)) {
            case Lookup.Found<ConfigMapData> f -> configMap = f.value();
            case Lookup.NotFound<ConfigMapData> n -> {
                return skip(pod, CacheBlendMessages.connectionMissing(ref));
            }
            case Lookup.Failed<ConfigMapData> f -> {
                return skip(pod, CacheBlendMessages.lookupFailed(
                        CONFIGMAP_KIND + ref.namespace() + "/" + configMapName, f.reason()));
            }
        }
        // 7. connection-invalid
        ConnectionConfig connection;
        switch (ConnectionConfig.read(configMap, connectionKey)) {
            case ConnectionConfig.Valid v -> connection = v.config();
            case ConnectionConfig.Invalid i -> {
                return skip(pod, CacheBlendMessages.connectionInvalid(ref, connectionKey, i.problem()));
            }
        }
        // 8. target-container-not-found
        Container target;
        switch (TargetContainer.select(pod, cacheBlendEngine)) {
            case TargetContainer.Selected s -> target = s.container();
            case TargetContainer.NotFound n -> {
                return skip(pod, CacheBlendMessages.targetContainerNotFound(podName, n));
            }
        }
        if (engine.isEmpty()) {
            return skip(pod, CacheBlendMessages.lookupFailed("the engine plugin that supports CacheBlend",
                    "no installed engine declares the capability " + EngineCapability.CACHEBLEND));
        }
        FlagGrammar grammar = engine.get().flagGrammar();
        // 9. launch-unproven, only when the target sets a command
        if (target.command().filter(c -> !c.isEmpty()).isPresent()) {
            LaunchResult launch = LaunchAnalysis.analyse(
                    new LaunchInput(target.command(), target.args(), false, engine.get().entryPoint(), entryPoints));
            if (launch instanceof LaunchResult.Refused refused) {
                return skip(pod, CacheBlendMessages.launchUnproven(target, refused.subject(),
                        LaunchMessages.brief(refused)));
            }
        }
        // 10. kv-transfer-config-present, in every spelling vLLM reads as it
        List<FlagHit> kvFlag = FlagResolver.find(grammar, target.command().orElse(List.of()),
                target.args().orElse(List.of()), List.of(CacheBlendArgs.KV_TRANSFER_CONFIG));
        if (!kvFlag.isEmpty()) {
            return skip(pod, CacheBlendMessages.kvTransferConfigPresent(target, kvFlag.get(0)));
        }
        // 10b. plugin-name-taken (this project's addition): a name CacheBlend writes is already used for something else
        if (pod.containers().stream().anyMatch(c -> c.name().equals(CacheBlendKeys.INIT_CONTAINER))) {
            return skip(pod, CacheBlendMessages.pluginNameTaken("the container name \"" + CacheBlendKeys.INIT_CONTAINER
                    + "\" (an app container of this Pod)", "rename that container"));
        }
        for (VolumeMount m : target.mountsOrEmpty()) {
            String path = m.mountPath().endsWith("/") && m.mountPath().length() > 1
                    ? m.mountPath().substring(0, m.mountPath().length() - 1) : m.mountPath();
            if (path.equals(CacheBlendKeys.PLUGIN_PATH) && !m.name().equals(CacheBlendKeys.PLUGIN_VOLUME)) {
                return skip(pod, CacheBlendMessages.pluginNameTaken("the mount path " + CacheBlendKeys.PLUGIN_PATH
                        + " on container " + MessageText.quote(target.name()) + " (volume " + MessageText.quote(m.name()) + ")",
                        "move that mount elsewhere"));
            }
        }
        boolean hostPathMode = cacheBlendEngine.hostIPC().isPresent() && !cacheBlendEngine.hostIPC().get();
        if (hostPathMode && !pod.hostIPC()) {
            for (Volume v : pod.volumesOrEmpty()) {
                if (v.name().equals(CacheBlendKeys.DEV_SHM_VOLUME) && !v.source().equals("hostPath")) {
                    return skip(pod, CacheBlendMessages.pluginNameTaken("the volume name \"" + CacheBlendKeys.DEV_SHM_VOLUME
                            + "\" (taken by the Pod's " + v.source() + " volume; CacheBlend mounts the host's /dev/shm under that name)",
                            "rename that volume"));
                }
            }
        }
        // 11. payload-image-unset
        if (cacheBlendEngine.payloadRepository().filter(s -> !s.isBlank()).isEmpty()) {
            return skip(pod, CacheBlendMessages.payloadImageUnset(ref));
        }
        // 12. the full injection
        CacheBlendMutation.Injection injection = CacheBlendMutation.inject(pod, target, cacheBlendEngine, connection,
                grammar);
        List<Warning> warnings = new ArrayList<>(injection.warnings());
        // 13. advisory warnings this project adds (docs/reference/cacheblend-injection.md, "Warnings")
        if (directory.namespace(namespace) instanceof Lookup.Found<NamespaceLabels> ns) {
            ns.value().podSecurityEnforce().filter(level -> !level.equals("privileged"))
                    .ifPresent(level -> warnings.add(CacheBlendMessages.namespaceNotPrivileged(namespace, level)));
        }
        cacheBlendEngine.imageTag().filter(tag -> !tag.equals(cacheBlendEngine.payloadTag())).ifPresent(tag ->
                warnings.add(CacheBlendMessages.imagesMismatched(ref, cacheBlendEngine.payloadTag(), tag)));
        return new Decision.Admit(injection.patch(), warnings);
    }

    private Decision skip(Pod pod, CacheBlendSkip skip) {
        if (settings.failClosed()) {
            return new Decision.Refuse(skip.code(), skip.message());
        }
        return new Decision.Skip(skip.code(), skip.warning(), CacheBlendMutation.skipPatch(pod, skip.code().id()));
    }

    /** A label of the object as received, or {@code null}; a malformed {@code metadata} reads as no label. */
    private static String rawLabel(Object object, String key) {
        if (object instanceof Map<?, ?> root && root.get("metadata") instanceof Map<?, ?> md
                && md.get("labels") instanceof Map<?, ?> labels && labels.get(key) instanceof String s) {
            return s;
        }
        return null;
    }

    private static String rawNamespace(Object object) {
        if (object instanceof Map<?, ?> root && root.get("metadata") instanceof Map<?, ?> md
                && md.get("namespace") instanceof String s) {
            return s;
        }
        return null;
    }
}
