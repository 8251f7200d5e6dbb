package io.kvcacheinjector.domain.launch;

/** The engine entry points launch analysis recognises (reference: launch-and-flags.md §1.6). */
public enum EntryPoint {
    /** {@code vllm …}: matches the runtimes {@code vllm} and {@code vllm-ascend}. */
    VLLM("vllm"),
    /** {@code python3 -m sglang.launch_server …}: matches the runtime {@code sglang}. */
    SGLANG("sglang");

    private final String id;

    EntryPoint(String id) {
        this.id = id;
    }

    /** {@code vllm} or {@code sglang}. */
    public String id() {
        return id;
    }
}
