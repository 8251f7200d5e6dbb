package io.kvcacheinjector.domain.kvcache;

import static io.kvcacheinjector.domain.text.MessageText.quote;
import static io.kvcacheinjector.domain.kvcache.KvCacheKeys.*;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.cluster.Condition;
import io.kvcacheinjector.domain.cluster.KvCachePool;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.pod.Container;
import io.kvcacheinjector.domain.pod.EnvFromSource;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The words of every refusal and warning of the kvcache mutate webhook after the annotations are read (the annotation
 * refusals are {@link KvCacheAnnotations}'s, the launch refusals {@code LaunchMessages}'): one paragraph that starts
 * with the code, names the objects and the value as written, says what would happen instead of caching, and ends with
 * the fix (docs/reference/refusal-codes.md). Every value taken from the Pod or the cluster is shown by
 * {@link io.kvcacheinjector.domain.text.MessageText#quote}, the one quoting rule of all messages.
 */
public final class KvCacheMessages {
    private KvCacheMessages() {
    }

    /** {@code KVCachePoolBinding "team-a/chat"}: the Binding as messages name it (its name is the Pod's text). */
    public static String bindingRef(String namespace, String name) {
        return "KVCachePoolBinding " + quote(namespace + "/" + name);
    }

    public static Decision.Refuse podUnreadable(String problem) {
        return refuse(ReasonCode.POD_UNREADABLE, "the object under review could not be read as a Pod (" + problem
                + "), so the webhook cannot show that an injection would take effect; correct the Pod's definition");
    }

    public static Decision.Refuse contractsConflict(String podName) {
        return refuse(ReasonCode.CONTRACTS_CONFLICT, "Pod " + podName + " sets both " + LABEL_INJECT + " and "
                + CACHEBLEND_LABEL + " to \"true\", but each contract sets the engine's single KV connector (one"
                + " --kv-transfer-config), so at most one of them could take effect; remove one of the two labels where"
                + " the Pod is defined");
    }

    /** {@code cluster-not-ready}: {@code what} could not be read, for {@code reason}. */
    public static Decision.Refuse notReady(String what, String reason) {
        return refuse(ReasonCode.CLUSTER_NOT_READY, "the webhook could not read " + what + " (" + reason
                + "), and it refuses rather than guess; retry (a workload controller retries by itself, a bare Pod must"
                + " be created again), and if the refusal persists, check the webhook's readiness and its read permissions");
    }

    public static Decision.Refuse bindingNotFound(String bindingRef) {
        return refuse(ReasonCode.BINDING_NOT_FOUND, bindingRef + " (named by " + BINDING
                + ") does not exist in the Pod's namespace; create the Binding, or correct the name");
    }

    public static Decision.Refuse bindingTerminating(String bindingRef) {
        return refuse(ReasonCode.BINDING_TERMINATING, bindingRef + " is being deleted, so its domain is being withdrawn"
                + " and every cache write would fail (waiting will not fix it); wait for the deletion to finish and create a"
                + " new Binding, or name a Binding that is not being deleted");
    }

    public static Decision.Refuse bindingNamesNoPool(String bindingRef) {
        return refuse(ReasonCode.POOL_NOT_FOUND, bindingRef + " names no pool (spec.poolRef.name is empty); set poolRef"
                + " on the Binding");
    }

    public static Decision.Refuse poolNotFound(String poolName, String bindingRef) {
        return refuse(ReasonCode.POOL_NOT_FOUND, "KVCachePool " + poolName + ", named by " + bindingRef
                + " in spec.poolRef.name, does not exist; correct poolRef on the Binding, or create the pool");
    }

    /** {@code ledger-not-ready}: the pool's {@code QuotaLedgerAvailable} condition, or its absence. */
    public static Decision.Refuse ledgerNotReady(KvCachePool pool, Optional<Condition> condition) {
        if (condition.isEmpty()) {
            return refuse(ReasonCode.LEDGER_NOT_READY, "KVCachePool " + pool.name() + " has not published its"
                    + " QuotaLedgerAvailable condition, so it is undecided whether writes to its domains would be"
                    + " accepted; wait until the pool reports it");
        }
        Condition c = condition.get();
        if (c.status().equals("False")) {
            return refuse(ReasonCode.LEDGER_NOT_READY, "KVCachePool " + pool.name() + " reports"
                    + " QuotaLedgerAvailable=False, reason " + quote(c.reason()) + ", message " + quote(c.message())
                    + ", so every cache write would be rejected; repair what the reason names (LedgerUnreachable means"
                    + " the master could not be reached: restore the master)");
        }
        return refuse(ReasonCode.LEDGER_NOT_READY, "KVCachePool " + pool.name() + " reports QuotaLedgerAvailable="
                + quote(c.status()) + " (reason " + quote(c.reason()) + "), so it is undecided whether writes would be"
                + " accepted; wait until the pool reports it");
    }

    public static Decision.Refuse poolNamesNoBackend(String poolName) {
        return refuse(ReasonCode.BACKEND_NOT_FOUND, "KVCachePool " + poolName + " names no backend (spec.backends is"
                + " empty), so there is no store to connect to; set spec.backends on the pool");
    }

    public static Decision.Refuse backendNotFound(String backendName, String poolName) {
        return refuse(ReasonCode.BACKEND_NOT_FOUND, "KVCacheBackend " + backendName + ", named by KVCachePool " + poolName
                + " in spec.backends[0], does not exist; create the backend, or set spec.backends on the pool to one that exists");
    }

    public static Decision.Refuse endpointNotPublished(String poolName) {
        return refuse(ReasonCode.ENDPOINT_NOT_PUBLISHED, "KVCachePool " + poolName + " has not published"
                + " status.clientEndpoint, so there is no master address to give the engine; wait for the pool to publish"
                + " its client endpoint, and if it stays empty, check the pool's and the backend's status");
    }

    /**
     * {@code transport-mixed}: the backend's member groups offer several transports.
     *
     * @param engine   the engine as messages name it: {@code vllm (vLLM)}
     * @param distinct the distinct offers, in declaration order
     * @param offers   every effective offer, in declaration order ({@code ""} for an unknown enum value)
     */
    public static Decision.Refuse transportMixed(String engine, String backendName, String poolName, List<String> distinct,
                                                 List<String> offers) {
        return refuse(ReasonCode.TRANSPORT_MIXED, "engine " + engine + " runs one transport, but KVCacheBackend "
                + backendName + " of KVCachePool " + poolName + " offers " + String.join(", ", distinct)
                + " across its member groups (effective offers in declaration order: "
                + offers.stream().map(o -> o.isEmpty() ? "(unknown)" : o).collect(Collectors.joining(", "))
                + "), and reading a block from a group on another transport fails with NotSupportedTransport; give the"
                + " backend's spec.transport.protocol and every overriding group's transport.protocol one common value,"
                + " or bind to a pool that offers a single transport");
    }

    /**
     * {@code transport-unsupported}: no offer the engine can use.
     *
     * @param engineId      the engine's id
     * @param runtimeSource where the runtime came from: {@code engine vLLM with manufacturer ascend}
     * @param required      the transport the engine requires: artifact and API spelling, and where it was measured
     */
    public static Decision.Refuse transportUnsupported(String engineId, String runtimeSource, String backendName,
                                                       String poolName, List<String> offers,
                                                       Optional<RequiredTransport> required) {
        String offered = offers.stream().map(o -> o.isEmpty() ? "(unknown enum value)" : o).collect(Collectors.joining(", "));
        if (required.isPresent()) {
            RequiredTransport r = required.get();
            return refuse(ReasonCode.TRANSPORT_UNSUPPORTED, "engine " + engineId + " (" + runtimeSource + ") requires"
                    + " transport " + r.artifact() + " (measured at " + r.measuredAt() + "), but KVCacheBackend "
                    + backendName + " of KVCachePool " + poolName + " offers " + offered
                    + ", so the container would fail to start; set " + r.api() + " (API spelling) on the backend's"
                    + " spec.transport.protocol, or on one member group's transport.protocol (an unset protocol is Auto,"
                    + " which resolves to tcp), or bind to a pool that offers " + r.artifact());
        }
        return refuse(ReasonCode.TRANSPORT_UNSUPPORTED, "KVCacheBackend " + backendName + " of KVCachePool " + poolName
                + " offers only transports this webhook does not know (" + offered + "), so engine " + engineId
                + " would be given no usable protocol; set spec.transport.protocol on the backend to a known value (TCP,"
                + " RDMA, EFA, CANN, ROCM, MUSA, MACA)");
    }

    public static Decision.Refuse containerIsInit(String name, List<Container> appContainers) {
        return refuse(ReasonCode.CONTAINER_IS_INIT, "container " + quote(name) + " named by " + CONTAINER
                + " is an init container, which exits before the engine starts; name an app container ("
                + names(appContainers) + ")");
    }

    public static Decision.Refuse containerNotFound(String name, List<Container> appContainers) {
        return refuse(ReasonCode.CONTAINER_NOT_FOUND, "container " + quote(name) + " named by " + CONTAINER
                + " is not a container of this Pod (app containers: " + names(appContainers) + "); correct the name");
    }

    public static Decision.Refuse noContainers() {
        return refuse(ReasonCode.CONTAINER_NOT_FOUND, "the Pod has no containers, so there is no engine to configure;"
                + " add the engine container");
    }

    public static Decision.Refuse containerAmbiguous(List<Container> appContainers) {
        return refuse(ReasonCode.CONTAINER_AMBIGUOUS, "the Pod has " + appContainers.size() + " containers ("
                + names(appContainers) + ") and " + CONTAINER + " is not set; the first one is never chosen, because"
                + " configuring a sidecar would leave the engine uncached; set " + CONTAINER
                + " to the container that runs the engine");
    }

    /**
     * A key the container must not set ({@code key-owned}, {@code dtype-owned}, {@code offloading-overrides-connector},
     * {@code config-source}).
     *
     * @param runtime the engine as this message names it: {@code vllm-ascend (engine vLLM with manufacturer ascend)}
     * @param found   what the container sets, as written: {@code "--kv_transfer_config" (… reads it as …)}, {@code env X}
     */
    public static Decision.Refuse keyFound(ReasonCode code, Container target, String runtime, String found,
                                           WatchedKey key, KvCachePoolBinding binding) {
        String fix = switch (code) {
            case KEY_OWNED -> "remove it from the container, or, if the container manages its own cache, drop the "
                    + LABEL_INJECT + " label";
            case DTYPE_OWNED -> "remove it and name a Binding that declares the dtype you want (KVCachePoolBinding "
                    + binding.namespace() + "/" + binding.name() + " declares " + quote(binding.dtype())
                    + "), or turn the Setting model-deployment-kv-cache-dtype-owned off (operator-wide), which keeps the"
                    + " container's own flag";
            case OFFLOADING_OVERRIDES_CONNECTOR -> "remove it, because node-local offloading and the shared pool are"
                    + " alternatives; to keep offloading, drop the " + LABEL_INJECT + " label";
            case CONFIG_SOURCE -> "remove it; the store settings come from the Binding and its pool";
            case EXTERNAL_LINKER_CONFLICT -> "remove it to use the Binding's pool through the hierarchical cache, or,"
                    + " to keep the linker, drop the " + LABEL_INJECT + " label and configure its store yourself";
            default -> "remove it";
        };
        return new Decision.Refuse(List.of(code), code.id() + ": container " + quote(target.name()) + " (" + runtime
                + ") sets " + found + ", and " + key.consequence() + "; " + fix + ".");
    }

    public static Decision.Refuse volumeNameTaken() {
        return refuse(ReasonCode.VOLUME_OWNED, "the Pod declares a volume named " + quote(VOLUME_NAME)
                + ", which this webhook writes for the projected client configuration; rename your volume");
    }

    public static Decision.Refuse volumeMounted(Container target) {
        return refuse(ReasonCode.VOLUME_OWNED, "container " + quote(target.name()) + " mounts a volume named "
                + quote(VOLUME_NAME) + ", which this webhook writes; rename your volume");
    }

    public static Decision.Refuse mountPathTaken(Container target, String volume, String path) {
        return refuse(ReasonCode.VOLUME_OWNED, "container " + quote(target.name()) + " mounts volume " + quote(volume)
                + " at " + quote(path) + ", where this webhook mounts the projected client configuration (" + FILE_PATH
                + "); move your mount");
    }

    /** {@code warn-config-file}: the container loads a {@code --config} file admission cannot read. */
    public static Warning configFile(Container target, String engineId, String file, String configFileKeys) {
        return new Warning(ReasonCode.WARN_CONFIG_FILE, "warn-config-file: container " + quote(target.name()) + " ("
                + engineId + ") loads --config " + quote(file) + ", which admission cannot read; " + configFileKeys);
    }

    /** {@code warn-envfrom}: variables in {@code envFrom} sources are not checked. */
    public static Warning envFrom(Container target, String unchecked) {
        return new Warning(ReasonCode.WARN_ENVFROM, "warn-envfrom: container " + quote(target.name()) + " has envFrom ("
                + target.envFrom().stream().map(EnvFromSource::describe).collect(Collectors.joining(", "))
                + "); injected variables override the same names there, and " + unchecked
                + " there are not checked; declare Mooncake variables in env");
    }

    /** {@code warn-no-tenant}: the pool has multi-tenancy disabled. */
    public static Warning noTenant(String poolName, String domain) {
        return new Warning(ReasonCode.WARN_NO_TENANT, "warn-no-tenant: KVCachePool " + poolName
                + " has multi-tenancy disabled, so domain " + quote(domain)
                + " was not written as a tenant; enable tenant separation on the backend if isolation is intended");
    }

    /**
     * {@code warn-tenant-unread}: the pool keeps a tenant ledger, and the engine does not read the injected tenant.
     *
     * @param runtime the engine as key refusals name it: {@code vllm-ascend (engine vLLM with manufacturer ascend)}
     */
    public static Warning tenantUnread(Container target, String runtime, String displayName, String poolName,
                                       String domain) {
        return new Warning(ReasonCode.WARN_TENANT_UNREAD, "warn-tenant-unread: container " + quote(target.name()) + " ("
                + runtime + ") runs " + displayName + ", which does not read the injected tenant, so its writes go to"
                + " Mooncake's tenant \"default\" instead of domain " + quote(domain) + " of KVCachePool " + poolName
                + " (the record's tenantInjected: true says only that the tenant was written); run a " + displayName
                + " release that reads the tenant, or register the domain \"default\" on the pool if sharing it is"
                + " intended");
    }

    private static String names(List<Container> containers) {
        return containers.stream().map(c -> quote(c.name())).collect(Collectors.joining(", "));
    }

    private static Decision.Refuse refuse(ReasonCode code, String text) {
        return new Decision.Refuse(List.of(code), code.id() + ": " + text + ".");
    }
}
