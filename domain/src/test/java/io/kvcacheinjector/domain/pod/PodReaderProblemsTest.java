package io.kvcacheinjector.domain.pod;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where {@link PodReader} says a malformed Pod is wrong: every field it reads, at every depth, named as the Pod
 * writes it. (Issue 8 made these paths be built only when something is wrong; the messages must not change.)
 */
class PodReaderProblemsTest {

    private static String problem(String podJson) {
        PodReading r = PodReader.read(Json.parse(podJson).orElseThrow());
        assertThat(r).as(podJson).isInstanceOf(PodReading.Unreadable.class);
        return ((PodReading.Unreadable) r).problem();
    }

    private static String container(String fields) {
        return "{\"metadata\":{},\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"," + fields + "}]}}";
    }

    @Test
    void namesTheFieldOfTheObjectAndItsMetadataAndSpec() {
        assertThat(problem("[]")).isEqualTo("the object is not an object");
        assertThat(problem("{\"metadata\":3}")).isEqualTo("metadata is not an object");
        assertThat(problem("{\"spec\":\"x\"}")).isEqualTo("spec is not an object");
        assertThat(problem("{\"metadata\":{\"annotations\":{\"a\":1}}}"))
                .isEqualTo("metadata.annotations[\"a\"] is not a string");
        assertThat(problem("{\"metadata\":{\"labels\":[]}}")).isEqualTo("metadata.labels is not an object");
        assertThat(problem("{\"metadata\":{\"namespace\":1}}")).isEqualTo("metadata.namespace is not a string");
        assertThat(problem("{\"metadata\":{\"name\":true}}")).isEqualTo("metadata.name is not a string");
        assertThat(problem("{\"metadata\":{\"generateName\":{}}}")).isEqualTo("metadata.generateName is not a string");
        assertThat(problem("{\"spec\":{\"hostIPC\":\"yes\"}}")).isEqualTo("spec.hostIPC is not a boolean");
        assertThat(problem("{\"spec\":{\"containers\":{}}}")).isEqualTo("spec.containers is not a list");
        assertThat(problem("{\"spec\":{\"initContainers\":[1]}}")).isEqualTo("spec.initContainers[0] is not an object");
        assertThat(problem("{\"spec\":{\"volumes\":[{\"name\":\"v\"},{\"name\":2}]}}"))
                .isEqualTo("spec.volumes[1].name is not a string");
        assertThat(problem("{\"spec\":{\"volumes\":[\"v\"]}}")).isEqualTo("spec.volumes[0] is not an object");
        assertThat(problem("{\"spec\":{\"imagePullSecrets\":[{\"name\":[]}]}}"))
                .isEqualTo("spec.imagePullSecrets[0].name is not a string");
    }

    @Test
    void namesTheFieldOfAContainerByItsIndex() {
        assertThat(problem("{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":1}]}}"))
                .isEqualTo("spec.containers[1].name is not a string");
        assertThat(problem(container("\"command\":\"vllm\""))).isEqualTo("spec.containers[1].command is not a list");
        assertThat(problem(container("\"args\":[\"serve\",2]"))).isEqualTo("spec.containers[1].args[1] is not a string");
        assertThat(problem(container("\"env\":[{\"name\":\"A\"},{\"value\":\"x\"}]")))
                .isEqualTo("spec.containers[1].env[1].name is missing");
        assertThat(problem(container("\"env\":[{\"name\":3}]"))).isEqualTo("spec.containers[1].env[0].name is not a string");
        assertThat(problem(container("\"env\":[{\"name\":\"A\",\"value\":1}]")))
                .isEqualTo("spec.containers[1].env[0].value is not a string");
        assertThat(problem(container("\"env\":[{\"name\":\"A\",\"valueFrom\":\"x\"}]")))
                .isEqualTo("spec.containers[1].env[0].valueFrom is not an object");
        assertThat(problem(container("\"env\":[\"A=1\"]"))).isEqualTo("spec.containers[1].env[0] is not an object");
        assertThat(problem(container("\"envFrom\":[{\"configMapRef\":{\"name\":1}}]")))
                .isEqualTo("spec.containers[1].envFrom[0].configMapRef.name is not a string");
        assertThat(problem(container("\"envFrom\":[{\"secretRef\":{\"name\":1}}]")))
                .isEqualTo("spec.containers[1].envFrom[0].secretRef.name is not a string");
        assertThat(problem(container("\"envFrom\":[{\"configMapRef\":1}]")))
                .isEqualTo("spec.containers[1].envFrom[0].configMapRef is not an object");
        assertThat(problem(container("\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":1}]")))
                .isEqualTo("spec.containers[1].volumeMounts[0].mountPath is not a string");
        assertThat(problem(container("\"volumeMounts\":[{\"name\":1}]")))
                .isEqualTo("spec.containers[1].volumeMounts[0].name is not a string");
    }

    @Test
    void aWellFormedPodIsRead() {
        PodReading r = PodReader.read(Json.parse(container("\"command\":[\"vllm\"],\"env\":[{\"name\":\"A\",\"value\":\"1\"},"
                + "{\"name\":\"B\",\"valueFrom\":{\"fieldRef\":{}}}],\"envFrom\":[{\"secretRef\":{\"name\":\"s\"}}],"
                + "\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/v\"}]")).orElseThrow());
        assertThat(r).isInstanceOfSatisfying(PodReading.Read.class, read -> {
            Container b = read.pod().containers().get(1);
            assertThat(b.name()).isEqualTo("b");
            assertThat(b.command()).contains(List.of("vllm"));
            assertThat(b.env()).hasValueSatisfying(env -> assertThat(env).extracting(EnvVar::name).containsExactly("A", "B"));
        });
    }
}
