package io.kvcacheinjector.engines.example;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.kvcache.EngineSelector;
import io.kvcacheinjector.domain.kvcache.EnvEntry;
import io.kvcacheinjector.domain.kvcache.InjectionValues;
import io.kvcacheinjector.domain.kvcache.Rendering;
import io.kvcacheinjector.domain.kvcache.Vehicle;
import io.kvcacheinjector.domain.kvcache.WatchedKey;
import io.kvcacheinjector.domain.launch.EntryPoint;
import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.EnginePlugin;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A fourth engine that exists only in the tests (docs/how-to/add-an-engine.md walks through the same code): selected by
 * {@code kvcache.gpustack.ai/engine: Example}, launched as {@code example-server …}, configured through the
 * environment. The tests compile this file into a jar of its own and drop it into an engines folder, the way an
 * engine from outside this repository arrives; it is not part of any Maven module.
 */
@EnginePlugin(spiVersion = EngineInjector.SPI_VERSION)
public final class ExampleEngine implements EngineInjector {
    /** The engine's own flag parser: {@code --name value} or {@code --name=value}, exact names only. */
    private static final FlagGrammar GRAMMAR = new FlagGrammar() {
        @Override
        public String engineName() {
            return "Example";
        }

        @Override
        public Optional<String> name(String token) {
            if (!token.startsWith("--") || token.length() == 2) {
                return Optional.empty();
            }
            int eq = token.indexOf('=');
            return Optional.of(eq < 0 ? token : token.substring(0, eq));
        }

        @Override
        public Set<String> catalogue() {
            return Set.of("--example-store", "--port", "--model");
        }
    };

    @Override
    public String id() {
        return "example";
    }

    @Override
    public String displayName() {
        return "Example";
    }

    @Override
    public EngineSelector selector() {
        return EngineSelector.engine("Example");
    }

    @Override
    public EntryPoint entryPoint() {
        return EntryPoint.program("example-server", "Example", "example-server run");
    }

    @Override
    public Vehicle vehicle() {
        return Vehicle.ENVIRONMENT;
    }

    @Override
    public FlagGrammar flagGrammar() {
        return GRAMMAR;
    }

    @Override
    public List<WatchedKey> watchedKeys(boolean dtypeOwned) {
        return List.of(WatchedKey.flag("--example-store", ReasonCode.KEY_OWNED,
                "the container already chooses the Example engine's store, so two sources would set it"));
    }

    @Override
    public Rendering render(InjectionValues v) {
        return new Rendering(Vehicle.ENVIRONMENT, List.of("--example-store", "mooncake"), List.of(),
                List.of(EnvEntry.literal("EXAMPLE_STORE_MASTER", v.clientEndpoint()),
                        EnvEntry.literal("EXAMPLE_STORE_PROTOCOL", v.protocol()),
                        EnvEntry.literal("EXAMPLE_STORE_DOMAIN", v.domain())),
                Optional.empty());
    }
}
