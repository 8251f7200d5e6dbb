package io.kvcacheinjector.ports.in;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Drives one {@code CacheBlendEngine} towards its desired children (docs/reference/cacheblend-engine.md). */
public interface CacheBlendReconcileUseCase {

    /**
     * Reconciles {@code engine} (the whole object as plain JSON values, {@code status} included) and returns the
     * status to write.
     */
    Result reconcile(Map<String, Object> engine);

    /**
     * What one reconcile did.
     *
     * @param status   the engine's new {@code status}
     * @param applied  {@code <Kind>/<name>} of every child applied, in order
     * @param invalid  the validation message when the engine is invalid (then nothing was applied)
     */
    record Result(Map<String, Object> status, List<String> applied, Optional<String> invalid) {
        public Result {
            status = Map.copyOf(status);
            applied = List.copyOf(applied);
        }
    }
}
