package io.kvcacheinjector.adapters.k8s.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvcacheinjector.adapters.k8s.Await;
import io.kvcacheinjector.adapters.k8s.ClusterDirectoryContract;
import io.kvcacheinjector.domain.cluster.KvCachePoolBinding;
import io.kvcacheinjector.domain.cluster.Lookup;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileClusterDirectoryTest extends ClusterDirectoryContract {
    private static final String BINDING = """
            apiVersion: worker.gpustack.ai/v1alpha1
            kind: KVCachePoolBinding
            metadata:
              name: %s
              namespace: team-a
            spec:
              poolRef: {name: shared}
              domain: {name: d, dtype: bfloat16}
            """;

    private FileClusterDirectory fixture;
    @TempDir
    Path tmp;

    @BeforeEach
    void openFixture() {
        fixture = FileClusterDirectory.open(fixtureCluster(), "gpustack-system");
    }

    @AfterEach
    void closeFixture() {
        fixture.close();
    }

    @Override
    protected ClusterDirectoryPort directory() {
        return fixture;
    }

    @Override
    protected SettingsPort settings() {
        return fixture;
    }

    @Test
    void theDtypeSettingIsOnWithoutTheSecret() throws IOException {
        write("b.yaml", BINDING.formatted("chat"));
        try (FileClusterDirectory dir = FileClusterDirectory.open(tmp, "gpustack-system")) {
            assertThat(dir.kvCacheDtypeOwned()).isTrue();
        }
    }

    @Test
    void theSettingsSecretIsReadOnlyFromTheConfiguredNamespace() {
        // the fixture's "false" lives in gpustack-system; from namespace "elsewhere" the Setting says "true"
        try (FileClusterDirectory dir = FileClusterDirectory.open(fixtureCluster(), "elsewhere")) {
            assertThat(dir.kvCacheDtypeOwned()).isTrue();
        }
        try (FileClusterDirectory dir = FileClusterDirectory.open(fixtureCluster(), "nobody")) {
            assertThat(dir.kvCacheDtypeOwned()).isTrue();
        }
    }

    @Test
    void anUnparseableSettingGivesTheDefaultOn() throws IOException {
        write("s.yaml", """
                apiVersion: v1
                kind: Secret
                metadata: {name: gpustack-settings, namespace: gpustack-system}
                stringData: {model-deployment-kv-cache-dtype-owned: "yes"}
                """);
        try (FileClusterDirectory dir = FileClusterDirectory.open(tmp, "gpustack-system")) {
            assertThat(dir.kvCacheDtypeOwned()).isTrue();
        }
    }

    @Test
    void aNamespacedObjectWithoutNamespaceIsInDefault() throws IOException {
        write("b.yaml", BINDING.formatted("chat").replace("  namespace: team-a\n", ""));
        try (FileClusterDirectory dir = FileClusterDirectory.open(tmp, "gpustack-system")) {
            assertThat(dir.binding("default", "chat")).isInstanceOf(Lookup.Found.class);
            assertThat(dir.binding("team-a", "chat")).isEqualTo(Lookup.notFound());
        }
    }

    @Test
    void aSingleManifestFileCanStandForTheDirectory() throws IOException {
        Path file = write("one.yml", BINDING.formatted("chat"));
        try (FileClusterDirectory dir = FileClusterDirectory.open(file, "gpustack-system")) {
            assertThat(dir.binding("team-a", "chat")).isInstanceOf(Lookup.Found.class);
        }
    }

    @Test
    void aMissingDirectoryIsAClearError() {
        Path missing = tmp.resolve("no-such-dir");
        assertThatThrownBy(() -> FileClusterDirectory.open(missing, "gpustack-system"))
                .isInstanceOf(ClusterFileException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("does not exist");
    }

    @Test
    void invalidYamlIsRefusedNamingTheFileAndLine() throws IOException {
        write("ok.yaml", BINDING.formatted("chat"));
        Path bad = write("nested/bad.yaml", BINDING.formatted("x") + "---\nkind: [unclosed\n");
        assertThatThrownBy(() -> FileClusterDirectory.open(tmp, "gpustack-system"))
                .isInstanceOfSatisfying(ClusterFileException.class, e -> assertThat(e.file()).isEqualTo(bad))
                .hasMessageContaining(bad.toString())
                .hasMessageContaining("is not valid YAML at line");
    }

    @Test
    void invalidJsonIsRefusedNamingTheFile() throws IOException {
        Path bad = write("bad.json", "{\"kind\": \"KVCachePool\", ");
        assertThatThrownBy(() -> FileClusterDirectory.open(tmp, "gpustack-system"))
                .hasMessageContaining(bad.toString())
                .hasMessageContaining("is not valid JSON");
    }

    @Test
    void aDocumentThatIsNotAnObjectIsRefused() throws IOException {
        Path bad = write("list.yaml", BINDING.formatted("a") + "---\n- just\n- a list\n");
        assertThatThrownBy(() -> FileClusterDirectory.open(tmp, "gpustack-system"))
                .hasMessageContaining(bad + ", document 2 is not a Kubernetes object");
    }

    @Test
    void aDocumentWithoutKindIsRefused() throws IOException {
        Path bad = write("values.yaml", "replicas: 2\nimage: {tag: x}\n");
        assertThatThrownBy(() -> FileClusterDirectory.open(tmp, "gpustack-system"))
                .hasMessageContaining(bad + ", document 1 has no kind");
    }

    @Test
    void aKnownKindUnderAnotherApiGroupIsRefusedWithTheExpectedApiVersion() throws IOException {
        Path bad = write("engine.yaml", """
                apiVersion: lmcache.ai/v1alpha1
                kind: CacheBlendEngine
                metadata: {name: cb, namespace: lmcache}
                """);
        assertThatThrownBy(() -> FileClusterDirectory.open(tmp, "gpustack-system"))
                .hasMessageContaining(bad + ", document 1")
                .hasMessageContaining("CacheBlendEngine has apiVersion 'lmcache.ai/v1alpha1'")
                .hasMessageContaining("set apiVersion: lmcache.lmcache.ai/v1alpha1");
    }

    @Test
    void anotherVersionOfTheSameGroupIsRead() throws IOException {
        write("b.yaml", BINDING.formatted("chat").replace("v1alpha1", "v1"));
        try (FileClusterDirectory dir = FileClusterDirectory.open(tmp, "gpustack-system")) {
            assertThat(dir.binding("team-a", "chat")).isInstanceOf(Lookup.Found.class);
        }
    }

    @Test
    void anObjectWithoutNameIsRefused() throws IOException {
        Path bad = write("pool.yaml", "apiVersion: worker.gpustack.ai/v1alpha1\nkind: KVCachePool\nmetadata: {}\n");
        assertThatThrownBy(() -> FileClusterDirectory.open(tmp, "gpustack-system"))
                .hasMessageContaining(bad + ", document 1: KVCachePool has no metadata.name");
    }

    @Test
    void theSameObjectTwiceIsRefusedNamingBothFiles() throws IOException {
        Path first = write("a.yaml", BINDING.formatted("chat"));
        Path second = write("z/b.yaml", BINDING.formatted("other") + "---\n" + BINDING.formatted("chat"));
        assertThatThrownBy(() -> FileClusterDirectory.open(tmp, "gpustack-system"))
                .hasMessageContaining(second + ", document 2: KVCachePoolBinding team-a/chat is already defined in "
                        + first + " (document 1)");
    }

    @Test
    void reloadsWhenAFileIsAddedChangedOrRemoved() throws IOException {
        write("a.yaml", BINDING.formatted("chat"));
        try (FileClusterDirectory dir = FileClusterDirectory.open(tmp, "gpustack-system")) {
            dir.startWatching();
            assertThat(dir.binding("team-a", "late")).isEqualTo(Lookup.notFound());

            Path added = write("sub/late.yaml", BINDING.formatted("late"));
            Await.until("the new Binding to appear", () -> dir.binding("team-a", "late") instanceof Lookup.Found);

            write("sub/late.yaml", BINDING.formatted("late").replace("dtype: bfloat16", "dtype: fp8"));
            Await.until("the changed dtype", () -> dir.binding("team-a", "late") instanceof Lookup.Found<KvCachePoolBinding> f
                    && f.value().dtype().equals("fp8"));

            Files.delete(added);
            Await.until("the Binding to go away", () -> dir.binding("team-a", "late") instanceof Lookup.NotFound);
            assertThat(dir.binding("team-a", "chat")).isInstanceOf(Lookup.Found.class);
        }
    }

    @Test
    void aBadReloadKeepsTheLastGoodViewAndSaysWhy() throws IOException {
        Path file = write("a.yaml", BINDING.formatted("chat"));
        try (FileClusterDirectory dir = FileClusterDirectory.open(tmp, "gpustack-system")) {
            dir.startWatching();
            Files.writeString(file, "kind: [broken\n");
            Await.until("the failed reload to be reported", () -> dir.lastReloadProblem().isPresent());
            assertThat(dir.lastReloadProblem().orElseThrow()).contains(file.toString()).contains("not valid YAML");
            assertThat(dir.binding("team-a", "chat")).isInstanceOf(Lookup.Found.class);

            Files.writeString(file, BINDING.formatted("fixed"));
            Await.until("the good reload", () -> dir.binding("team-a", "fixed") instanceof Lookup.Found);
            assertThat(dir.lastReloadProblem()).isEqualTo(Optional.empty());
            assertThat(dir.binding("team-a", "chat")).isEqualTo(Lookup.notFound());
        }
    }

    @Test
    void hiddenEntriesAndOtherFilesAreNotRead() throws IOException {
        // the fixture cluster has .hidden/broken.yaml, other/README.txt and a Deployment: none of them disturbs it
        assertThat(Files.exists(fixtureCluster().resolve(".hidden/broken.yaml"))).isTrue();
        assertThat(fixture.binding("team-a", "chat")).isInstanceOf(Lookup.Found.class);
    }

    private Path write(String relative, String content) throws IOException {
        Path file = tmp.resolve(relative);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, content);
    }
}
