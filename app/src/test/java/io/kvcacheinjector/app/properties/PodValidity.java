package io.kvcacheinjector.app.properties;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The API server's uniqueness and reference rules a patch could break (Pod validation): container names unique
 * across app and init containers, volume names unique, mount paths unique within a container, every mount naming a
 * volume of the Pod. Each broken rule is one line; the properties require that a patch adds none.
 */
final class PodValidity {
    private PodValidity() {
    }

    static Set<String> problems(JsonNode pod) {
        Set<String> problems = new LinkedHashSet<>();
        JsonNode spec = pod.path("spec");
        Set<String> containerNames = new HashSet<>();
        Set<String> volumes = new HashSet<>();
        for (JsonNode v : JsonTrees.elements(spec.path("volumes"))) {
            String name = v.path("name").asText();
            if (!volumes.add(name)) {
                problems.add("two volumes are named " + name);
            }
        }
        for (String list : new String[] {"initContainers", "containers"}) {
            for (JsonNode c : JsonTrees.elements(spec.path(list))) {
                String name = c.path("name").asText();
                if (!containerNames.add(name)) {
                    problems.add("two containers are named " + name);
                }
                Set<String> paths = new HashSet<>();
                for (JsonNode m : JsonTrees.elements(c.path("volumeMounts"))) {
                    String path = m.path("mountPath").asText();
                    if (!paths.add(path)) {
                        problems.add("container " + name + " mounts two volumes at " + path);
                    }
                    if (!volumes.contains(m.path("name").asText())) {
                        problems.add("container " + name + " mounts " + m.path("name").asText() + ", which is not a volume");
                    }
                }
            }
        }
        return problems;
    }
}
