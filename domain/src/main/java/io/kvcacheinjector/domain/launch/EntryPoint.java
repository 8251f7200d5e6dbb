package io.kvcacheinjector.domain.launch;

import java.util.List;
import java.util.Objects;

/**
 * How launch analysis recognises an engine's own entry point once transparent launchers are stripped
 * (docs/reference/launch-analysis.md, "Recognised entry points"). Each engine plugin declares its entry point; the
 * core names none.
 *
 * <p>The resolved argv starts with {@link #tokens()}: the first token is compared with the basename of the resolved
 * program ({@code /usr/local/bin/vllm} is {@code vllm}), every further token exactly ({@code -m},
 * {@code sglang.launch_server}). Whatever follows (a subcommand such as {@code serve}, the engine's flags) is not
 * compared. Two engines that declare the same tokens share the entry point (vLLM-Ascend runs under vLLM's own CLI).
 *
 * @param tokens     the leading tokens of the resolved argv, at least one, none empty
 * @param engineName the engine as a message names the entry point: "the {@code vLLM} entry point"
 * @param example    a launch that is recognised, as a message suggests it: {@code vllm serve}
 */
public record EntryPoint(List<String> tokens, String engineName, String example) {
    public EntryPoint {
        tokens = List.copyOf(tokens);
        Objects.requireNonNull(engineName, "engineName");
        Objects.requireNonNull(example, "example");
        if (tokens.isEmpty() || tokens.stream().anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException("an entry point needs at least one token and no empty token: " + tokens);
        }
        if (tokens.get(0).contains("/")) {
            throw new IllegalArgumentException("the first token of an entry point is a program basename, without '/': "
                    + tokens.get(0));
        }
    }

    /** A program of its own, recognised by its basename: {@code program("vllm", "vLLM", "vllm serve")}. */
    public static EntryPoint program(String program, String engineName, String example) {
        return new EntryPoint(List.of(program), engineName, example);
    }

    /**
     * A Python module run with {@code python3 -m}: recognised only as exactly {@code python3 -m <module>} (not
     * {@code python}, not {@code python3.12}), as the reference table of recognised launches says.
     */
    public static EntryPoint pythonModule(String module, String engineName) {
        return new EntryPoint(List.of("python3", "-m", module), engineName, "python3 -m " + module);
    }

    /** Whether {@code resolved} (the argv after launcher stripping, program first) starts with this entry point. */
    public boolean recognises(List<String> resolved) {
        if (resolved.size() < tokens.size() || !LaunchAnalysis.basename(resolved.get(0)).equals(tokens.get(0))) {
            return false;
        }
        for (int i = 1; i < tokens.size(); i++) {
            if (!resolved.get(i).equals(tokens.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** Whether the two recognise the same launches (the names may differ). */
    public boolean sameLaunch(EntryPoint other) {
        return tokens.equals(other.tokens);
    }
}
