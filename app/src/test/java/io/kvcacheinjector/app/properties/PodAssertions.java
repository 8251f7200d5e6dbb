package io.kvcacheinjector.app.properties;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** Assertions on a Pod before and after its patch, shared by both contracts' properties. */
final class PodAssertions {
    private PodAssertions() {
    }

    /** {@code after} is an array that starts with the elements of {@code before} (absent or null: no elements). */
    static void assertPrefix(String what, JsonNode before, JsonNode after) {
        List<JsonNode> head = JsonTrees.elements(before);
        List<JsonNode> all = JsonTrees.elements(after);
        assertThat(all.size()).as(what).isGreaterThanOrEqualTo(head.size());
        assertThat(all.subList(0, head.size())).as(what).isEqualTo(head);
    }

    /**
     * Only container {@code target} may change, and never its {@code command}; its own args stay first, in order.
     */
    static void assertOnlyTargetChanges(JsonNode original, JsonNode patched, int target) {
        JsonNode before = original.path("spec").path("containers");
        JsonNode after = patched.path("spec").path("containers");
        assertThat(after.size()).as("no container is added or removed").isEqualTo(before.size());
        for (int i = 0; i < before.size(); i++) {
            if (i != target) {
                assertThat(after.get(i)).as("container %d is not the target and never changes", i).isEqualTo(before.get(i));
            }
        }
        assertThat(after.get(target).path("command")).as("command never changes").isEqualTo(before.get(target).path("command"));
        assertPrefix("the container's own args come first, unchanged", before.get(target).path("args"),
                after.get(target).path("args"));
        assertPrefix("the Pod's own volumes are kept, in order", original.path("spec").path("volumes"),
                patched.path("spec").path("volumes"));
        assertThat(patched.path("metadata").path("labels")).as("labels never change")
                .isEqualTo(original.path("metadata").path("labels"));
    }
}
