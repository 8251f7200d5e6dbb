package io.kvcacheinjector.adapters.k8s.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.kvcacheinjector.adapters.k8s.ClusterDirectoryContract;
import io.kvcacheinjector.adapters.k8s.model.CacheBlendEngineResource;
import io.kvcacheinjector.adapters.k8s.model.ClusterKind;
import io.kvcacheinjector.adapters.k8s.model.KVCacheBackendResource;
import io.kvcacheinjector.adapters.k8s.model.KVCachePoolBindingResource;
import io.kvcacheinjector.adapters.k8s.model.KVCachePoolResource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** The standalone CRDs under deploy/crds against the wire model, the chart's copies, and upstream-shaped objects. */
class CrdManifestTest {
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    static Path crdDir() {
        return Path.of(System.getProperty("kvcache.crds.dir", "../deploy/crds"));
    }

    static Stream<Class<? extends CustomResource<?, ?>>> models() {
        return Stream.of(KVCachePoolBindingResource.class, KVCachePoolResource.class, KVCacheBackendResource.class,
                CacheBlendEngineResource.class);
    }

    static CustomResourceDefinition crd(Class<? extends HasMetadata> model) throws IOException {
        Path file = crdDir().resolve(HasMetadata.getGroup(model) + "_" + HasMetadata.getPlural(model) + ".yaml");
        return SERIALIZATION.unmarshal(Files.readString(file), CustomResourceDefinition.class);
    }

    @ParameterizedTest
    @MethodSource("models")
    void eachCrdNamesTheKindAsTheModelAndTheViewDo(Class<? extends CustomResource<?, ?>> model) throws IOException {
        CustomResourceDefinition crd = crd(model);
        ClusterKind kind = ClusterKind.ofKind(HasMetadata.getKind(model)).orElseThrow();
        assertThat(crd.getMetadata().getName()).isEqualTo(CustomResource.getCRDName(model));
        assertThat(crd.getSpec().getGroup()).isEqualTo(kind.group()).isEqualTo(HasMetadata.getGroup(model));
        assertThat(crd.getSpec().getNames().getKind()).isEqualTo(kind.kind());
        assertThat(crd.getSpec().getNames().getPlural()).isEqualTo(kind.plural()).isEqualTo(HasMetadata.getPlural(model));
        assertThat(crd.getSpec().getNames().getShortNames())
                .containsExactly(model.getAnnotation(ShortNames.class).value());
        assertThat(crd.getSpec().getScope()).isEqualTo(kind.namespaced() ? "Namespaced" : "Cluster");
        assertThat(crd.getSpec().getVersions()).singleElement().satisfies(v -> {
            assertThat(v.getName()).isEqualTo(kind.version()).isEqualTo(HasMetadata.getVersion(model));
            assertThat(v.getServed()).isTrue();
            assertThat(v.getStorage()).isTrue();
            assertThat(v.getSubresources().getStatus()).isNotNull();
            assertThat(v.getAdditionalPrinterColumns()).isNotEmpty()
                    .anySatisfy(c -> assertThat(c.getName()).isEqualTo("Age"));
        });
        if (kind.group().equals("worker.gpustack.ai")) {
            assertThat(crd.getSpec().getNames().getCategories()).containsExactly("gpustack");
        }
    }

    @Test
    void theShortNamesAreTheOnesUsersType() {
        assertThat(models().map(m -> m.getAnnotation(ShortNames.class).value()[0]))
                .containsExactly("kvcpb", "kvcp", "kvcb", "cbe");
    }

    @ParameterizedTest
    @MethodSource("models")
    void eachSchemaIsStructural(Class<? extends CustomResource<?, ?>> model) throws IOException {
        CustomResourceDefinitionVersion version = crd(model).getSpec().getVersions().get(0);
        List<String> problems = new ArrayList<>();
        structural("", version.getSchema().getOpenAPIV3Schema(), problems);
        assertThat(problems).isEmpty();
        Map<String, JSONSchemaProps> top = version.getSchema().getOpenAPIV3Schema().getProperties();
        assertThat(top).containsKeys("apiVersion", "kind", "metadata", "spec", "status");
    }

    @ParameterizedTest
    @MethodSource("models")
    void theChartInstallsTheSameCrds(Class<? extends CustomResource<?, ?>> model) throws IOException {
        String name = HasMetadata.getGroup(model) + "_" + HasMetadata.getPlural(model) + ".yaml";
        assertThat(RenderedChart.chartDir().resolve("crds").resolve(name))
                .hasSameTextualContentAs(crdDir().resolve(name));
    }

    @Test
    void theChartHoldsNoOtherCrds() throws IOException {
        try (Stream<Path> files = Files.list(RenderedChart.chartDir().resolve("crds"))) {
            assertThat(files.map(f -> f.getFileName().toString()).sorted()).containsExactly(
                    "lmcache.lmcache.ai_cacheblendengines.yaml", "worker.gpustack.ai_kvcachebackends.yaml",
                    "worker.gpustack.ai_kvcachepoolbindings.yaml", "worker.gpustack.ai_kvcachepools.yaml");
        }
    }

    @Test
    void upstreamShapedObjectsRoundTripThroughTheModelUnchanged() throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        List<Map<String, Object>> objects = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ClusterDirectoryContract.fixtureCluster().resolve("kvcache"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                for (Object doc : yaml.readerFor(Object.class).readValues(f.toFile()).readAll()) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> object = (Map<String, Object>) doc;
                    objects.add(object);
                }
            }
        }
        assertThat(objects).hasSizeGreaterThanOrEqualTo(6);
        for (Map<String, Object> object : objects) {
            Class<? extends CustomResource<?, ?>> model = models()
                    .filter(m -> HasMetadata.getKind(m).equals(object.get("kind"))).findFirst().orElseThrow();
            Object typed = SERIALIZATION.convertValue(object, model);
            // compared as JSON values (a number's Java type is not part of the wire format)
            assertThat(reparsed(SERIALIZATION.asJson(typed))).as("%s round trip", object.get("kind"))
                    .isEqualTo(reparsed(SERIALIZATION.asJson(object)));
        }
    }

    private static Object reparsed(String json) {
        return SERIALIZATION.unmarshal(json, Map.class);
    }

    private static void structural(String path, JSONSchemaProps node, List<String> problems) {
        boolean intOrString = Boolean.TRUE.equals(node.getXKubernetesIntOrString());
        if (node.getType() == null && !intOrString) {
            problems.add(path + ": no type");
        }
        if (Boolean.TRUE.equals(node.getXKubernetesPreserveUnknownFields()) && !"object".equals(node.getType())) {
            problems.add(path + ": preserve-unknown-fields on a non-object");
        }
        if (node.getProperties() != null) {
            node.getProperties().forEach((name, child) -> structural(path + "." + name, child, problems));
        }
        if (node.getItems() != null && node.getItems().getSchema() != null) {
            structural(path + "[]", node.getItems().getSchema(), problems);
        }
        if (node.getAdditionalProperties() != null && node.getAdditionalProperties().getSchema() != null) {
            structural(path + "{}", node.getAdditionalProperties().getSchema(), problems);
        }
    }
}
