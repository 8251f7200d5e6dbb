package io.kvcacheinjector.domain.cacheblend;

/**
 * The engine's {@code spec.injection.cudagraph} (docs/reference/cacheblend-injection.md). CacheBlend never runs full CUDA graphs in
 * prefill, because re-RoPE happens there.
 */
public enum CudagraphMode {
    /** {@code eager}, the default, and any value the CRD enum does not know: bare {@code --enforce-eager}. */
    EAGER,
    /** {@code piecewise}: no flag, vLLM's default piecewise graphs. */
    PIECEWISE,
    /** {@code full_decode_only}: {@code --compilation-config {"cudagraph_mode":"FULL_DECODE_ONLY"}}. */
    FULL_DECODE_ONLY;

    /** Reads the engine's value exactly as upstream does: unknown values fall back to eager, the safe mode. */
    public static CudagraphMode of(String value) {
        if ("piecewise".equals(value)) {
            return PIECEWISE;
        }
        if ("full_decode_only".equals(value)) {
            return FULL_DECODE_ONLY;
        }
        return EAGER;
    }
}
