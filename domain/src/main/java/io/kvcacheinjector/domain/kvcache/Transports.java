package io.kvcacheinjector.domain.kvcache;

import io.kvcacheinjector.domain.cluster.KvCacheBackend;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Effective transport offers of a backend and matching them against an engine (docs/reference/kvcache-contract.md). */
public final class Transports {
    private static final Map<String, String> ARTIFACT = Map.of(
            "Auto", "tcp", "TCP", "tcp", "RDMA", "rdma", "EFA", "efa", "CANN", "ascend", "ROCM", "hip", "MUSA", "musa",
            "MACA", "maca");

    /** The outcome of matching. */
    public sealed interface Match permits Matched, Mixed, Unsupported {
    }

    /** The one protocol to write, in artifact spelling. */
    public record Matched(String protocol) implements Match {
    }

    /** Two or more distinct offers for an engine that requires none. */
    public record Mixed(List<String> distinct) implements Match {
    }

    /** No offer matches the requirement (or none is known). */
    public record Unsupported() implements Match {
    }

    private Transports() {
    }

    /** Maps an API spelling to the artifact spelling; {@code ""} for an unknown enum value. */
    public static String artifact(String api) {
        return ARTIFACT.getOrDefault(api, "");
    }

    /** The effective offers in declaration order, duplicates kept; never empty. */
    public static List<String> offers(KvCacheBackend backend) {
        String wide = artifact(backend.protocol().orElse("Auto"));
        if (backend.managedGroupProtocols().isEmpty()) {
            return List.of(wide);
        }
        List<String> out = new ArrayList<>();
        for (Optional<String> g : backend.managedGroupProtocols()) {
            out.add(g.map(Transports::artifact).orElse(wide));
        }
        return out;
    }

    /** Matches offers against an optional required transport (artifact spelling). */
    public static Match match(List<String> offers, Optional<String> required) {
        if (required.isPresent()) {
            for (String o : offers) {
                if (o.equals(required.get())) {
                    return new Matched(o);
                }
            }
            return new Unsupported();
        }
        LinkedHashSet<String> distinct = new LinkedHashSet<>();
        for (String o : offers) {
            if (!o.isEmpty()) {
                distinct.add(o);
            }
        }
        if (distinct.isEmpty()) {
            return new Unsupported();
        }
        if (distinct.size() > 1) {
            return new Mixed(List.copyOf(distinct));
        }
        return new Matched(distinct.iterator().next());
    }
}
