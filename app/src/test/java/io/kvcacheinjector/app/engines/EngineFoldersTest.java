package io.kvcacheinjector.app.engines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvcacheinjector.ports.spi.EngineCapability;
import io.kvcacheinjector.ports.spi.EngineInjector;
import io.kvcacheinjector.ports.spi.Engines;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loading engines from engines folders: the built-ins as the build lays them out, a fourth engine dropped in as a jar,
 * and every way a folder can be wrong, each answered by one line that names the folder or jar and the fix.
 */
class EngineFoldersTest {
    @TempDir
    static Path jars;
    private static Path example;

    @TempDir
    Path dir;

    @BeforeAll
    static void buildTheExampleEngine() {
        example = PluginJars.example(jars);
    }

    @Test
    void theBuiltInFolderHoldsTheThreeEnginesEachInAClassLoaderThatSeesOnlyTheSpi() throws Exception {
        EngineFolders.Loaded loaded = EngineFolders.load(List.of(BuiltInEngines.FOLDER));

        assertThat(loaded.details()).extracting(l -> l.engine().id()).containsExactly("sglang", "vllm", "vllm-ascend");
        for (LoadedEngine l : loaded.details()) {
            assertThat(l.folder().getFileName().toString()).isEqualTo(l.engine().id());
            ClassLoader loader = l.engine().getClass().getClassLoader();
            assertThat(loader).isInstanceOf(URLClassLoader.class).isNotSameAs(EngineFolders.class.getClassLoader());
            assertThat(loader.getName()).isEqualTo("engine-" + l.engine().id());
            // the SPI is the application's own, so the engine is an EngineInjector of ours
            assertThat(loader.loadClass(EngineInjector.class.getName())).isSameAs(EngineInjector.class);
            // nothing else of the application: no use case, no adapter, no framework
            for (String hidden : List.of("io.kvcacheinjector.ports.service.KvCacheInjection", "io.kvcacheinjector.app.Main",
                    "com.google.inject.Guice", "io.fabric8.kubernetes.client.KubernetesClient",
                    "com.fasterxml.jackson.databind.ObjectMapper")) {
                assertThatThrownBy(() -> loader.loadClass(hidden)).as(hidden).isInstanceOf(ClassNotFoundException.class);
            }
            assertThat(l.engine().version()).isNotEqualTo("unversioned");
        }
        assertThat(loaded.engines().withCapability(EngineCapability.CACHEBLEND)).map(EngineInjector::id).contains("vllm");
    }

    @Test
    void vllmAscendLoadsWithTheVllmFolderRemovedAndDoesNotSeeTheVllmPlugin() throws Exception {
        Path engines = PluginJars.builtInsInto(dir.resolve("engines"), "vllm");

        Engines loaded = EngineFolders.load(List.of(engines)).engines();

        assertThat(loaded.all()).extracting(EngineInjector::id).containsExactly("sglang", "vllm-ascend");
        ClassLoader ascend = loaded.get("vllm-ascend").getClass().getClassLoader();
        assertThatThrownBy(() -> ascend.loadClass("io.kvcacheinjector.engines.vllm.VllmEngine"))
                .isInstanceOf(ClassNotFoundException.class);
        assertThat(loaded.get("vllm-ascend").flagGrammar().catalogue()).contains("--kv-transfer-config");
    }

    @Test
    void aFourthEngineDroppedInAsAJarIsLoadedBesideTheBuiltIns() {
        Path engines = PluginJars.builtInsInto(dir.resolve("engines"));
        PluginJars.drop(example, engines, "example");

        EngineFolders.Loaded loaded = EngineFolders.load(List.of(engines));

        EngineInjector e = loaded.engines().get("example");
        assertThat(e.displayName()).isEqualTo("Example");
        assertThat(e.selector().describe()).isEqualTo("engine: Example");
        assertThat(e.version()).isEqualTo("1.0.0-test");
        assertThat(loaded.engines().entryPoints()).anySatisfy(p -> assertThat(p.example()).isEqualTo("example-server run"));
    }

    @Test
    void enginesFromSeveralFoldersAreLoadedTogether() {
        Path builtIns = PluginJars.builtInsInto(dir.resolve("engines"));
        Path extra = dir.resolve("engines-extra");
        PluginJars.drop(example, extra, "example");

        Engines loaded = EngineFolders.load(List.of(builtIns, extra)).engines();

        assertThat(loaded.all()).extracting(EngineInjector::id).containsExactly("sglang", "vllm", "vllm-ascend", "example");
    }

    @Test
    void aMissingFolderNamesItAndTheFlag() {
        Path missing = dir.resolve("nope");
        assertThatThrownBy(() -> EngineFolders.load(List.of(missing))).isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("engines folder " + missing.toAbsolutePath() + " does not exist")
                .hasMessageContaining("--engines-dir");
    }

    @Test
    void anEmptyFolderHoldsNoEngine() throws Exception {
        Path engines = Files.createDirectories(dir.resolve("engines"));
        assertThatThrownBy(() -> EngineFolders.load(List.of(engines))).isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("engines folder " + engines.toAbsolutePath() + " holds no engine")
                .hasMessageContaining("subfolder named by its id");
    }

    @Test
    void aSubfolderWithoutJarsAndAJarBesideTheSubfoldersAreNamed() throws Exception {
        Path engines = Files.createDirectories(dir.resolve("engines").resolve("example"));
        assertThatThrownBy(() -> EngineFolders.load(List.of(engines.getParent()))).isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("engine folder " + engines.toAbsolutePath() + " holds no jar")
                .hasMessageContaining("put the engine's jars in it");

        Path loose = dir.resolve("loose");
        Files.createDirectories(loose);
        Files.copy(example, loose.resolve("example.jar"));
        assertThatThrownBy(() -> EngineFolders.load(List.of(loose))).isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("holds the file example.jar")
                .hasMessageContaining("move it to " + loose.toAbsolutePath() + "/<engine id>/");
    }

    @Test
    void aJarThatRegistersNoEngineIsNamed() {
        Path engines = dir.resolve("engines");
        PluginJars.drop(PluginJars.exampleUnregistered(dir), engines, "example");
        assertThatThrownBy(() -> EngineFolders.load(List.of(engines))).isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("holds no engine: none of its jars (example-unregistered.jar) registers")
                .hasMessageContaining("META-INF/services");
    }

    @Test
    void aJarThatCannotBeReadIsNamed() throws Exception {
        Path folder = Files.createDirectories(dir.resolve("engines").resolve("broken"));
        Files.writeString(folder.resolve("broken.jar"), "not a zip file");
        assertThatThrownBy(() -> EngineFolders.load(List.of(folder.getParent()))).isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("engine folder " + folder.toAbsolutePath())
                .hasMessageMatching(".*(cannot be loaded|holds no engine).*");
    }

    @Test
    void aFolderNamedOtherwiseThanItsEngineIsRenamedByTheFix() {
        Path engines = dir.resolve("engines");
        PluginJars.drop(example, engines, "my-engine");
        assertThatThrownBy(() -> EngineFolders.load(List.of(engines))).isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("holds the engine \"example\" (example.jar)")
                .hasMessageContaining("rename the folder to example");
    }

    @Test
    void aPluginBuiltAgainstAnotherSpiMajorVersionIsRefusedNamingTheJarAndBothVersions() {
        Path engines = dir.resolve("engines");
        PluginJars.drop(PluginJars.exampleBuiltAgainst(dir, "2.0"), engines, "example");
        assertThatThrownBy(() -> EngineFolders.load(List.of(engines))).isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("example-spi-2.0.jar")
                .hasMessageContaining("was built against engine SPI 2.0, and this webhook provides SPI " + EngineInjector.SPI_VERSION)
                .hasMessageContaining("rebuild the engine against SPI " + EngineInjector.SPI_VERSION);
    }

    @Test
    void aPluginOfANewerMinorVersionIsRefusedAndAnOlderOneIsLoaded() {
        String[] ours = EngineInjector.SPI_VERSION.split("\\.");
        Path newer = dir.resolve("newer");
        PluginJars.drop(PluginJars.exampleBuiltAgainst(dir, ours[0] + "." + (Integer.parseInt(ours[1]) + 1)), newer, "example");
        assertThatThrownBy(() -> EngineFolders.load(List.of(newer))).isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("(older than the plugin's)");

        Path same = dir.resolve("same-major");
        PluginJars.drop(PluginJars.exampleBuiltAgainst(dir, ours[0] + ".0"), same, "example");
        assertThat(EngineFolders.load(List.of(same)).engines().get("example")).isNotNull();
    }

    @Test
    void aPluginThatDoesNotSayItsSpiVersionIsRefused() {
        Path engines = dir.resolve("engines");
        PluginJars.drop(PluginJars.exampleWithoutSpiVersion(dir), engines, "example");
        assertThatThrownBy(() -> EngineFolders.load(List.of(engines))).isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("example-unmarked.jar")
                .hasMessageContaining("@EnginePlugin(spiVersion = EngineInjector.SPI_VERSION)");
    }

    @Test
    void twoEnginesWithOneIdInTwoFoldersAreRefusedNamingBoth() {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        PluginJars.drop(example, a, "example");
        PluginJars.drop(example, b, "example");
        assertThatThrownBy(() -> EngineFolders.load(List.of(a, b))).isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("two engines declare the id \"example\"")
                .hasMessageContaining(a.resolve("example").toAbsolutePath().toString())
                .hasMessageContaining(b.resolve("example").toAbsolutePath().toString())
                .hasMessageContaining("remove one of them");
    }

    @Test
    void twoEnginesSelectedByTheSameAnnotationValuesAreRefused() {
        Path engines = PluginJars.builtInsInto(dir.resolve("engines"));
        PluginJars.drop(PluginJars.exampleWithId(dir, "vllm-fork", "VLLM"), engines, "vllm-fork");
        assertThatThrownBy(() -> EngineFolders.load(List.of(engines))).isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("engines \"vllm\"").hasMessageContaining("\"vllm-fork\"")
                .hasMessageContaining("are both selected by engine: VLLM")
                .hasMessageContaining("remove one of them");
    }

    @Test
    void withoutTheVllmFolderTheCacheBlendContractNeedsTheFlagThatDisablesIt() {
        Path engines = PluginJars.builtInsInto(dir.resolve("engines"), "vllm");
        EngineFolders.Loaded loaded = EngineFolders.load(List.of(engines));
        assertThatThrownBy(() -> EngineFolders.requireCacheBlendEngine(loaded, List.of(engines), true))
                .isInstanceOf(EngineLoadException.class)
                .hasMessageContaining("no engine in " + engines.toAbsolutePath() + " supports CacheBlend")
                .hasMessageContaining("put the vllm engine folder back, or start with --disable-cacheblend");
        EngineFolders.requireCacheBlendEngine(loaded, List.of(engines), false);
    }

    @Test
    void theDefaultFolderIsEnginesBesideTheApplication() {
        assertThat(EngineFolders.defaultFolder().getFileName().toString()).isEqualTo("engines");
        assertThat(EngineFolders.defaultFolder().getParent().resolve("classes")).isDirectory();
    }
}
