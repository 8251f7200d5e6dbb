package io.kvcacheinjector.domain.cacheblend;

import io.kvcacheinjector.domain.text.MessageText;
import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.pod.Container;
import io.kvcacheinjector.domain.pod.Pod;
import java.util.List;
import java.util.Optional;

/**
 * Chooses the vLLM container CacheBlend is injected into: the one named by the Pod annotation
 * {@code lmcache.ai/cacheblend-container}, failing that by the engine's {@code spec.injection.targetContainer},
 * failing that the Pod's only container. An empty or blank name counts as absent. A Pod with several containers and
 * no name is not guessed at: the first container is never chosen, because a sidecar added by another webhook can
 * come first (docs/reference/cacheblend-injection.md).
 */
public final class TargetContainer {
    private TargetContainer() {
    }

    /** Where the target's name came from. */
    public enum Source {
        ANNOTATION, ENGINE, ONLY_CONTAINER
    }

    public sealed interface Selection permits Selected, NotFound {
    }

    public record Selected(Container container, Source source) implements Selection {
    }

    /**
     * No target: {@code problem} is a sentence fragment naming the name and where it came from, or why none could
     * be chosen, and the Pod's app container names.
     */
    public record NotFound(String problem, String brief) implements Selection {
    }

    public static Selection select(Pod pod, CacheBlendEngine engine) {
        Optional<String> fromAnnotation = pod.annotation(CacheBlendKeys.CONTAINER).filter(s -> !s.isBlank());
        Optional<String> fromEngine = engine.targetContainer().filter(s -> !s.isBlank());
        List<String> names = pod.containers().stream().map(Container::name).toList();
        String have = pod.containers().isEmpty()
                ? "the Pod has no containers"
                : "the Pod's containers are " + Quoting.quoteAll(names);
        if (fromAnnotation.isPresent() || fromEngine.isPresent()) {
            Source source = fromAnnotation.isPresent() ? Source.ANNOTATION : Source.ENGINE;
            String name = fromAnnotation.orElseGet(fromEngine::get);
            Optional<Container> found = pod.container(name);
            if (found.isPresent()) {
                return new Selected(found.get(), source);
            }
            String where = source == Source.ANNOTATION
                    ? "annotation " + CacheBlendKeys.CONTAINER
                    : "the engine's " + CacheBlendKeys.ENGINE_TARGET_FIELD;
            boolean isInit = pod.initContainers().stream().anyMatch(c -> c.name().equals(name));
            String detail = isInit ? " is an init container, which exits before vLLM starts;" : " does not exist;";
            return new NotFound(
                    "container " + MessageText.quote(name) + ", named by " + where + "," + detail + " " + have,
                    "container " + MessageText.quote(name) + " (from " + where + ")" + (isInit ? " is an init container"
                            : " does not exist") + "; containers: " + Quoting.quoteAll(names));
        }
        if (pod.containers().size() == 1) {
            return new Selected(pod.containers().get(0), Source.ONLY_CONTAINER);
        }
        if (pod.containers().isEmpty()) {
            return new NotFound("the Pod has no containers", "the Pod has no containers");
        }
        return new NotFound(
                "the Pod has " + names.size() + " containers (" + Quoting.quoteAll(names) + ") and neither annotation "
                        + CacheBlendKeys.CONTAINER + " nor the engine's " + CacheBlendKeys.ENGINE_TARGET_FIELD
                        + " names one; the first is never chosen",
                names.size() + " containers (" + Quoting.quoteAll(names) + ") and no " + CacheBlendKeys.CONTAINER
                        + " annotation");
    }
}
