package io.kvcacheinjector.domain.cacheblend;

import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.flags.FlagHit;
import io.kvcacheinjector.domain.flags.FlagReadingKind;
import io.kvcacheinjector.domain.flags.FlagResolver;
import io.kvcacheinjector.domain.json.Json;
import io.kvcacheinjector.domain.pod.Container;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The vLLM arguments CacheBlend appends to the target's {@code args} (docs/reference/cacheblend-injection.md, decision 10), in upstream
 * order: {@code --attention-backend CUSTOM}, {@code --kv-transfer-config <connection JSON>},
 * {@code --no-enable-chunked-prefill}, {@code --block-size 64}, {@code --pipeline-parallel-size 1},
 * {@code --no-async-scheduling}, then the CUDA-graph flag of the engine's mode.
 *
 * <p>Nothing is edited in place: every flag goes after the container's own arguments, so argparse's last-wins makes
 * ours effective. A flag that takes a value is always appended. A bare flag is appended unless every token of the
 * container that sets the same thing already reads as that very flag. The container's tokens that set the same
 * thing differently, in any spelling vLLM reads (underscores, {@code =}, abbreviations, dotted members, the short
 * options {@code -pp}, {@code -ac}, {@code -cc}), are reported so that a {@code warn-overridden-flag} can name them.
 * {@code --attention-config} (and {@code -ac}) counts only where it sets the backend: vLLM rejects it together with
 * {@code --attention-backend}.
 */
public final class CacheBlendArgs {
    public static final String ATTENTION_BACKEND = "--attention-backend";
    public static final String ATTENTION_CONFIG = "--attention-config";
    public static final String KV_TRANSFER_CONFIG = "--kv-transfer-config";
    public static final String NO_CHUNKED_PREFILL = "--no-enable-chunked-prefill";
    public static final String CHUNKED_PREFILL = "--enable-chunked-prefill";
    public static final String BLOCK_SIZE = "--block-size";
    public static final String PIPELINE_PARALLEL_SIZE = "--pipeline-parallel-size";
    public static final String NO_ASYNC_SCHEDULING = "--no-async-scheduling";
    public static final String ASYNC_SCHEDULING = "--async-scheduling";
    public static final String ENFORCE_EAGER = "--enforce-eager";
    public static final String NO_ENFORCE_EAGER = "--no-enforce-eager";
    public static final String COMPILATION_CONFIG = "--compilation-config";
    public static final String FULL_DECODE_ONLY_JSON = "{\"cudagraph_mode\":\"FULL_DECODE_ONLY\"}";

    /** vLLM's single-dash options that are spellings of a flag CacheBlend sets (2026 adds -ac and -cc). */
    private static final Map<String, String> SHORT_OPTIONS = Map.of(
            "-pp", PIPELINE_PARALLEL_SIZE,
            "-ac", ATTENTION_CONFIG,
            "-cc", COMPILATION_CONFIG);

    private CacheBlendArgs() {
    }

    /**
     * The arguments to append and the container's tokens they override.
     *
     * @param appended   the tokens to append after the container's own {@code args}, in order
     * @param overridden the container's tokens that set an injected flag differently, in argv order
     */
    public record Plan(List<String> appended, List<FlagHit> overridden) {
        public Plan {
            appended = List.copyOf(appended);
            overridden = List.copyOf(overridden);
        }
    }

    /** One thing CacheBlend sets: the flag it appends, its value (empty for a bare flag) and every flag that sets it. */
    private record Setting(String flag, Optional<String> value, List<String> watched) {
    }

    /**
     * Plans the appended arguments for {@code target}. The caller has already made sure the container passes no
     * {@code --kv-transfer-config} (otherwise the Pod is skipped).
     */
    public static Plan plan(FlagGrammar grammar, Container target, CudagraphMode mode, String kvTransferConfig) {
        List<String> command = target.command().orElse(List.of());
        List<String> args = target.args().orElse(List.of());
        List<String> argv = target.argv();
        List<Setting> settings = new ArrayList<>();
        settings.add(new Setting(ATTENTION_BACKEND, Optional.of("CUSTOM"), List.of(ATTENTION_BACKEND, ATTENTION_CONFIG)));
        settings.add(new Setting(KV_TRANSFER_CONFIG, Optional.of(kvTransferConfig), List.of()));
        settings.add(new Setting(NO_CHUNKED_PREFILL, Optional.empty(), List.of(NO_CHUNKED_PREFILL, CHUNKED_PREFILL)));
        settings.add(new Setting(BLOCK_SIZE, Optional.of("64"), List.of(BLOCK_SIZE)));
        settings.add(new Setting(PIPELINE_PARALLEL_SIZE, Optional.of("1"), List.of(PIPELINE_PARALLEL_SIZE)));
        settings.add(new Setting(NO_ASYNC_SCHEDULING, Optional.empty(), List.of(NO_ASYNC_SCHEDULING, ASYNC_SCHEDULING)));
        switch (mode) {
            case EAGER -> settings.add(new Setting(ENFORCE_EAGER, Optional.empty(), List.of(ENFORCE_EAGER, NO_ENFORCE_EAGER)));
            case FULL_DECODE_ONLY -> settings.add(
                    new Setting(COMPILATION_CONFIG, Optional.of(FULL_DECODE_ONLY_JSON), List.of(COMPILATION_CONFIG)));
            case PIECEWISE -> {
                // vLLM's default: nothing to append.
            }
        }

        List<String> appended = new ArrayList<>();
        List<FlagHit> overridden = new ArrayList<>();
        for (Setting s : settings) {
            List<FlagHit> hits = new ArrayList<>(FlagResolver.find(grammar, command, args, s.watched()));
            hits.addAll(shortOptionHits(command, args, s.watched()));
            hits.removeIf(h -> h.flag().equals(ATTENTION_CONFIG) && !setsAttentionBackend(h, argv));
            hits.sort(Comparator.comparingInt(FlagHit::argvIndex));
            boolean alreadySet = s.value().isEmpty() && !hits.isEmpty()
                    && hits.stream().allMatch(h -> readsAs(h, s.flag()) && argv.get(h.argvIndex()).indexOf('=') < 0);
            if (!alreadySet) {
                appended.add(s.flag());
                s.value().ifPresent(appended::add);
            }
            for (FlagHit h : hits) {
                boolean same = readsAs(h, s.flag()) && s.value().map(v -> valueOf(h, argv).equals(Optional.of(v)))
                        .orElse(argv.get(h.argvIndex()).indexOf('=') < 0);
                if (!same && overridden.stream().noneMatch(o -> o.argvIndex() == h.argvIndex())) {
                    overridden.add(h);
                }
            }
        }
        overridden.sort(Comparator.comparingInt(FlagHit::argvIndex));
        return new Plan(appended, overridden);
    }

    /**
     * The flag CacheBlend appends for a watched flag: {@code --enable-chunked-prefill} is overridden by the appended
     * {@code --no-enable-chunked-prefill}, {@code --async-scheduling} by {@code --no-async-scheduling},
     * {@code --no-enforce-eager} by {@code --enforce-eager}, {@code --attention-config} by {@code --attention-backend};
     * any other flag by itself.
     */
    public static String appendedFor(String watchedFlag) {
        return switch (watchedFlag) {
            case CHUNKED_PREFILL -> NO_CHUNKED_PREFILL;
            case ASYNC_SCHEDULING -> NO_ASYNC_SCHEDULING;
            case NO_ENFORCE_EAGER -> ENFORCE_EAGER;
            case ATTENTION_CONFIG -> ATTENTION_BACKEND;
            default -> watchedFlag;
        };
    }

    /** Whether the hit is an unambiguous, undotted reading of {@code flag}. */
    private static boolean readsAs(FlagHit hit, String flag) {
        return hit.flag().equals(flag) && hit.kind() != FlagReadingKind.AMBIGUOUS_ABBREVIATION && !hit.dotted();
    }

    /** The value the hit's entry passes: after its first {@code =}, else the next argv entry. */
    private static Optional<String> valueOf(FlagHit hit, List<String> argv) {
        String entry = argv.get(hit.argvIndex());
        int eq = entry.indexOf('=');
        if (eq >= 0) {
            return Optional.of(entry.substring(eq + 1));
        }
        int next = hit.argvIndex() + 1;
        return next < argv.size() ? Optional.of(argv.get(next)) : Optional.empty();
    }

    /**
     * Whether an {@code --attention-config} entry sets the backend: a dotted member {@code .backend}, or a JSON value
     * with a {@code backend} key. A value that is not a JSON object is counted, since admission cannot tell.
     */
    private static boolean setsAttentionBackend(FlagHit hit, List<String> argv) {
        String written = hit.written();
        int dot = written.indexOf('.');
        if (dot >= 0) {
            String member = written.substring(dot + 1);
            int end = member.length();
            for (int i = 0; i < member.length(); i++) {
                char c = member.charAt(i);
                if (c == '.' || c == '+') {
                    end = i;
                    break;
                }
            }
            return member.substring(0, end).equals("backend");
        }
        Optional<Object> value = valueOf(hit, argv).flatMap(Json::parse);
        return !(value.isPresent() && value.get() instanceof Map<?, ?> m && !m.containsKey("backend"));
    }

    /**
     * The container's single-dash spellings of a watched flag: the exact option, {@code -pp=2}, or a dotted member
     * ({@code -ac.backend}). Single-dash tokens never abbreviate, so nothing else counts.
     */
    private static List<FlagHit> shortOptionHits(List<String> command, List<String> args, List<String> watched) {
        List<FlagHit> hits = new ArrayList<>();
        List<String> argv = new ArrayList<>(command);
        argv.addAll(args);
        for (int i = 0; i < argv.size(); i++) {
            String entry = argv.get(i);
            if (entry == null || entry.startsWith("--")) {
                continue;
            }
            String written = entry.indexOf('=') < 0 ? entry : entry.substring(0, entry.indexOf('='));
            String option = written.indexOf('.') < 0 ? written : written.substring(0, written.indexOf('.'));
            String flag = SHORT_OPTIONS.get(option);
            if (flag != null && watched.contains(flag)) {
                hits.add(new FlagHit(i, i < command.size(), written, flag, FlagReadingKind.NORMALISED, List.of()));
            }
        }
        return hits;
    }
}
