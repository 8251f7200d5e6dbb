package io.kvcacheinjector.ports.testing;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.ports.service.KvCacheInjection;
import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.EnginePlugin;
import io.kvcacheinjector.ports.spi.Engines;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The golden suite of one engine module: extend it with the engine id, put case folders under
 * {@code src/test/resources/testdata/<id>/}, and the whole kvcache contract runs against that engine, found through
 * its {@code META-INF/services} registration as the application finds it, with the other built-in engines installed
 * alongside as {@link StandInEngine}s (so the suite runs with this module alone on the class path).
 */
public abstract class EngineContractTest extends GoldenContractTest {

    /** The engine id this module provides. */
    protected abstract String engineId();

    @Override
    protected String suite() {
        return engineId();
    }

    protected Engines engines() {
        return installedWithStandIns();
    }

    /** The engines of this class path, and a stand-in for every built-in engine id that is not among them. */
    public static Engines installedWithStandIns() {
        List<EngineInjector> loaded = new ArrayList<>(ServiceLoader.load(EngineInjector.class).stream()
                .map(ServiceLoader.Provider::get).toList());
        for (StandInEngine standIn : StandInEngine.BUILT_IN) {
            if (loaded.stream().noneMatch(e -> e.id().equals(standIn.id()))) {
                loaded.add(standIn);
            }
        }
        return Engines.of(loaded);
    }

    @Override
    protected Decision decide(String namespace, Object pod, FakeClusterDirectory directory) {
        return new KvCacheInjection(directory, directory, engines()).mutate(namespace, new ReceivedPod(pod));
    }

    @Override
    protected List<Pattern> allowedPaths() {
        return patterns("/spec/containers/\\d+/(args|env|volumeMounts)(/(-|\\d+))?", "/spec/volumes(/-)?",
                "/metadata/annotations(/kvcache\\.gpustack\\.ai~1(client-config|injected))?", "/metadata");
    }

    @Test
    void theModuleRegistersItsEngineForServiceLoader() {
        EngineInjector engine = engines().get(engineId());
        assertThat(engine).isNotInstanceOf(StandInEngine.class);
        assertThat(engine.getClass().getAnnotation(EnginePlugin.class)).as("@EnginePlugin on %s", engine.getClass())
                .isNotNull().extracting(EnginePlugin::spiVersion).isEqualTo(EngineInjector.SPI_VERSION);
        assertThat(engine.id()).isEqualTo(engineId());
        assertThat(engine.id()).matches("[a-z][a-z0-9-]*");
        for (String flag : engine.watchedKeys(true).stream().filter(k -> k.kind() == io.kvcacheinjector.domain.kvcache.WatchedKey.Kind.FLAG)
                .map(io.kvcacheinjector.domain.kvcache.WatchedKey::name).toList()) {
            assertThat(engine.flagGrammar().catalogue()).as("watched flag %s is in the engine's catalogue", flag).contains(flag);
        }
    }
}
