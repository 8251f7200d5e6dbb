package io.kvcacheinjector.ports.spi;

import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.kvcache.EngineSelector;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.Rendering;
import io.kvcacheinjector.domain.kvcache.RequiredTransport;
import io.kvcacheinjector.domain.kvcache.Vehicle;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import io.kvcacheinjector.domain.launch.EntryPoint;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One inference engine: the SPI an engine plugin implements once (docs/how-to/add-an-engine.md,
 * docs/reference/engine-spi.md). The webhook finds implementations in its engines folder, one class loader per
 * engine subfolder that sees only this package, {@code io.kvcacheinjector.domain} and the JDK, and registers the one
 * {@code META-INF/services/io.kvcacheinjector.ports.spi.EngineInjector} line of each plugin jar.
 *
 * <p>Everything engine-specific comes from here: which annotation values select the engine, how launch analysis
 * recognises its entry point, how its parser reads flags, which keys it owns, how it receives its configuration and
 * what its messages say about it. The core names no engine.
 *
 * <p><b>Versioning.</b> The implementing class carries {@link EnginePlugin @EnginePlugin(spiVersion =
 * EngineInjector.SPI_VERSION)}; the compiler writes the constant's value into the plugin's class file, so it records
 * the SPI the plugin was built against. The loader refuses a plugin of another major version, and one of a newer
 * minor version than this webhook's. The SPI grows only by default methods within a major version, so a plugin built
 * against an older minor version keeps working.
 */
public interface EngineInjector {
    /**
     * {@code MAJOR.MINOR} of this SPI. 1.0: the first plugin SPI. 1.1: {@link FlagGrammar#aliases},
     * {@link #readsTenant()} and {@link WatchedKey#values()}, all defaults (the 1.0 forms keep working). 1.2:
     * {@link FlagGrammar#releases} and {@link FlagGrammar#releasesOf} (defaults), so that a refusal names the supported
     * releases an abbreviation is ambiguous in.
     */
    String SPI_VERSION = "1.2";

    /** The stable lowercase id ({@code [a-z][a-z0-9-]*}), the name of the engine's folder and the record's {@code engine}. */
    String id();

    /** The engine as messages name it ({@code vLLM-Ascend}). */
    String displayName();

    /** The annotation values that select this engine; no two installed engines may share them. */
    EngineSelector selector();

    /** How launch analysis recognises this engine's entry point, and how messages show it. */
    EntryPoint entryPoint();

    /** How the engine receives its configuration. */
    Vehicle vehicle();

    /** How the engine's parser reads a token of its command line. */
    FlagGrammar flagGrammar();

    /**
     * The keys to keep out of the target container, in check order: owned keys, dtype (only when
     * {@code dtypeOwned}), offloading flags, config-source keys. Each carries the consequence a refusal states.
     */
    List<WatchedKey> watchedKeys(boolean dtypeOwned);

    /** Renders the injection for resolved values. */
    Rendering render(InjectionValues values);

    /** The plugin's own version, for the start-up log and {@code /metrics}: the jar's {@code Implementation-Version}. */
    default String version() {
        String v = getClass().getPackage() == null ? null : getClass().getPackage().getImplementationVersion();
        return v == null || v.isBlank() ? "unversioned" : v;
    }

    /** The transport the engine requires, if any (docs/reference/kvcache-contract.md, "Transport"). */
    default Optional<RequiredTransport> requiredTransport() {
        return Optional.empty();
    }

    /**
     * Whether the engine reads the {@code kvcache.gpustack.ai/role} annotation. The annotation is validated on every
     * engine; an engine that does not read it is rendered without a role.
     */
    default boolean readsRole() {
        return true;
    }

    /**
     * Whether the engine reads the tenant the webhook writes (the vLLM family: {@code tenant_id} in the projected
     * file; SGLang: {@code MOONCAKE_TENANT_ID}). The tenant is written either way; an engine that does not read it
     * writes as Mooncake's tenant {@code default}, so a Pod bound to a pool that keeps a tenant ledger is admitted
     * with the warning {@code warn-tenant-unread}. Added in SPI 1.1.
     */
    default boolean readsTenant() {
        return true;
    }

    /** What this engine can do beyond the kvcache contract; a contract finds the engine it needs by capability. */
    default Set<EngineCapability> capabilities() {
        return Set.of();
    }

    /**
     * The keys a {@code --config} file must not set, as the {@code warn-config-file} warning names them, ending with
     * anything the engine adds about such files.
     */
    default String configFileKeys() {
        return "keep the connector, dtype and offloading keys out of it";
    }

    /**
     * The variables that are checked in {@code env} but cannot be checked in an {@code envFrom} source, as the
     * {@code warn-envfrom} warning names them.
     */
    default String envFromUnchecked() {
        List<String> env = watchedKeys(false).stream().filter(k -> k.kind() == WatchedKey.Kind.ENV).map(WatchedKey::name).toList();
        return env.isEmpty() ? "the engine's configuration variables" : String.join(" and ", env);
    }
}
