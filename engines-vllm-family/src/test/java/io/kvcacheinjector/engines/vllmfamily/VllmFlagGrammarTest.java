package io.kvcacheinjector.engines.vllmfamily;

import static io.kvcacheinjector.domain.flags.FlagReadingKind.AMBIGUOUS_ABBREVIATION;
import static io.kvcacheinjector.domain.flags.FlagReadingKind.EXACT;
import static io.kvcacheinjector.domain.flags.FlagReadingKind.NORMALISED;
import static io.kvcacheinjector.domain.flags.FlagReadingKind.UNIQUE_ABBREVIATION;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.flags.FlagHit;
import io.kvcacheinjector.domain.flags.FlagReadingKind;
import io.kvcacheinjector.domain.flags.FlagResolver;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which tokens vLLM (and vLLM-Ascend, which reuses its parser) reads as the watched flags (docs/reference/flag-grammar.md).
 */
class VllmFlagGrammarTest {

    private static final VllmFlagGrammar VLLM = VllmFlagGrammar.INSTANCE;

    private static final String TRANSFER = "--kv-transfer-config";
    private static final String DTYPE = "--kv-cache-dtype";
    private static final String OFFLOAD_SIZE = "--kv-offloading-size";
    private static final String OFFLOAD_BACKEND = "--kv-offloading-backend";

    /** The Pod path's watched flags in check order, with the Setting model-deployment-kv-cache-dtype-owned on. */
    private static final List<String> WATCHED_DTYPE_OWNED = List.of(TRANSFER, DTYPE, OFFLOAD_SIZE, OFFLOAD_BACKEND);
    private static final List<String> WATCHED_DTYPE_NOT_OWNED = List.of(TRANSFER, OFFLOAD_SIZE, OFFLOAD_BACKEND);

    private record Reading(String flag, FlagReadingKind kind) {
    }

    private static Reading r(String flag, FlagReadingKind kind) {
        return new Reading(flag, kind);
    }

    private static List<Reading> readings(List<FlagHit> hits) {
        return hits.stream().map(hit -> r(hit.flag(), hit.kind())).toList();
    }

    static Stream<Arguments> spellings() {
        return Stream.of(
                // exact, and exact with =value
                Arguments.of("--kv-transfer-config", List.of(r(TRANSFER, EXACT))),
                Arguments.of("--kv-transfer-config={\"kv_connector\":\"X\",\"kv_role\":\"kv_both\"}", List.of(r(TRANSFER, EXACT))),
                Arguments.of("--kv-cache-dtype=fp8", List.of(r(DTYPE, EXACT))),
                Arguments.of("--kv-offloading-size", List.of(r(OFFLOAD_SIZE, EXACT))),
                Arguments.of("--kv-offloading-backend=native", List.of(r(OFFLOAD_BACKEND, EXACT))),
                // underscores (any mix) before the first '.' and '='
                Arguments.of("--kv_transfer_config={\"kv_connector\":\"X\"}", List.of(r(TRANSFER, NORMALISED))),
                Arguments.of("--kv-transfer_config", List.of(r(TRANSFER, NORMALISED))),
                Arguments.of("--kv_cache_dtype", List.of(r(DTYPE, NORMALISED))),
                Arguments.of("--kv_offloading_size=4", List.of(r(OFFLOAD_SIZE, NORMALISED))),
                // dotted members, plain, underscored and abbreviated
                Arguments.of("--kv-transfer-config.kv_role=kv_producer", List.of(r(TRANSFER, NORMALISED))),
                Arguments.of("--kv_transfer_config.kv_connector_extra_config.x=1", List.of(r(TRANSFER, NORMALISED))),
                Arguments.of("--kv-transfer-config.kv_connector", List.of(r(TRANSFER, NORMALISED))),
                Arguments.of("--kv-tr.kv_connector=X", List.of(r(TRANSFER, UNIQUE_ABBREVIATION))),
                Arguments.of("--kv-offloading-s.x=1", List.of(r(OFFLOAD_SIZE, UNIQUE_ABBREVIATION))),
                // unique prefixes, also underscored and with =value
                Arguments.of("--kv-t", List.of(r(TRANSFER, UNIQUE_ABBREVIATION))),
                Arguments.of("--kv_t={}", List.of(r(TRANSFER, UNIQUE_ABBREVIATION))),
                Arguments.of("--kv-transfer-confi", List.of(r(TRANSFER, UNIQUE_ABBREVIATION))),
                Arguments.of("--kv-offloading-s=4", List.of(r(OFFLOAD_SIZE, UNIQUE_ABBREVIATION))),
                Arguments.of("--kv-offloading-b", List.of(r(OFFLOAD_BACKEND, UNIQUE_ABBREVIATION))),
                // ambiguous prefixes: one name, several watched flags, in watched order
                Arguments.of("--kv", List.of(r(TRANSFER, AMBIGUOUS_ABBREVIATION), r(DTYPE, AMBIGUOUS_ABBREVIATION),
                        r(OFFLOAD_SIZE, AMBIGUOUS_ABBREVIATION), r(OFFLOAD_BACKEND, AMBIGUOUS_ABBREVIATION))),
                Arguments.of("--kv-", List.of(r(TRANSFER, AMBIGUOUS_ABBREVIATION), r(DTYPE, AMBIGUOUS_ABBREVIATION),
                        r(OFFLOAD_SIZE, AMBIGUOUS_ABBREVIATION), r(OFFLOAD_BACKEND, AMBIGUOUS_ABBREVIATION))),
                Arguments.of("--kv-c", List.of(r(DTYPE, AMBIGUOUS_ABBREVIATION))),
                Arguments.of("--kv-cache", List.of(r(DTYPE, AMBIGUOUS_ABBREVIATION))),
                Arguments.of("--kv-cache-d", List.of(r(DTYPE, AMBIGUOUS_ABBREVIATION))),
                Arguments.of("--kv-cache-dtyp=fp8", List.of(r(DTYPE, AMBIGUOUS_ABBREVIATION))),
                Arguments.of("--kv-o", List.of(r(OFFLOAD_SIZE, AMBIGUOUS_ABBREVIATION), r(OFFLOAD_BACKEND, AMBIGUOUS_ABBREVIATION))),
                Arguments.of("--kv_offloading_=1", List.of(r(OFFLOAD_SIZE, AMBIGUOUS_ABBREVIATION), r(OFFLOAD_BACKEND, AMBIGUOUS_ABBREVIATION))),
                // exact neighbours that start with a watched flag or share its stem: other options, not counted
                Arguments.of("--kv-cache-memory-bytes=1g", List.of()),
                Arguments.of("--kv-cache-dtype-skip-layers", List.of()),
                Arguments.of("--kv_cache_dtype_skip_layers=0", List.of()),
                Arguments.of("--kv-cache-metrics", List.of()),
                Arguments.of("--kv-events-config", List.of()),
                Arguments.of("--kv-e", List.of()),
                Arguments.of("--kv-sharing-fast-prefill", List.of()),
                // longer than any option, case, single dash, bare values and residue
                Arguments.of("--kv-transfer-config-x", List.of()),
                Arguments.of("--kv-transfer-configs", List.of()),
                Arguments.of("--KV-CACHE-DTYPE", List.of()),
                Arguments.of("--KV-TRANSFER-CONFIG", List.of()),
                Arguments.of("-kv-transfer-config", List.of()),
                Arguments.of("-O3", List.of()),
                Arguments.of("kv-transfer-config", List.of()),
                Arguments.of("{\"kv_connector\":\"--kv-transfer-config\"}", List.of()),
                Arguments.of("--", List.of()),
                Arguments.of("--=--kv-t", List.of()),
                Arguments.of("--.kv_role=x", List.of()),
                Arguments.of("", List.of()));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("spellings")
    void readsEachSpellingAsVllmDoes(String token, List<Reading> expected) {
        List<FlagHit> hits = FlagResolver.find(VLLM, List.of("vllm", "serve"), List.of("m", token), WATCHED_DTYPE_OWNED);

        assertThat(readings(hits)).containsExactlyElementsOf(expected);
        String written = token.contains("=") ? token.substring(0, token.indexOf('=')) : token;
        assertThat(hits).allSatisfy(hit -> {
            assertThat(hit.argvIndex()).isEqualTo(3);
            assertThat(hit.inCommand()).isFalse();
            assertThat(hit.written()).isEqualTo(written);
        });
    }

    @Test
    void kvCacheDtypeIsNotWatchedWhileTheSettingIsOff() {
        List<FlagHit> hits = FlagResolver.find(VLLM, List.of(), List.of("--kv-cache-dtype", "fp8", "--kv-cache-d", "--kv"),
                WATCHED_DTYPE_NOT_OWNED);

        assertThat(hits).extracting(FlagHit::argvIndex, FlagHit::flag).containsExactly(
                org.assertj.core.groups.Tuple.tuple(3, TRANSFER),
                org.assertj.core.groups.Tuple.tuple(3, OFFLOAD_SIZE),
                org.assertj.core.groups.Tuple.tuple(3, OFFLOAD_BACKEND));
    }

    @Test
    void valueTokensAndTokensAfterABareDoubleDashAreTestedToo() {
        List<FlagHit> hits = FlagResolver.find(VLLM, List.of("/sbin/tini", "--", "vllm", "--kv_t"),
                List.of("serve", "--served-model-name", "--kv-offloading-s", "--", "--kv-transfer-config"),
                WATCHED_DTYPE_OWNED);

        assertThat(hits).extracting(FlagHit::argvIndex, FlagHit::inCommand, FlagHit::flag).containsExactly(
                org.assertj.core.groups.Tuple.tuple(3, true, TRANSFER),
                org.assertj.core.groups.Tuple.tuple(6, false, OFFLOAD_SIZE),
                org.assertj.core.groups.Tuple.tuple(8, false, TRANSFER));
    }

    @Test
    void describesEachReadingForTheRefusalMessage() {
        List<FlagHit> hits = FlagResolver.find(VLLM, List.of("--kv-t"),
                List.of("--kv_transfer_config={\"kv_connector\":\"X\"}", "--kv-transfer-config.kv_role=kv_producer",
                        "--kv-tr.kv_connector=X", "--kv-o=4", "--kv-transfer-config"),
                WATCHED_DTYPE_OWNED);

        assertThat(hits).extracting(hit -> hit.describe("vLLM")).containsExactly(
                "\"--kv-t\" in command, which vLLM reads as --kv-transfer-config (a unique abbreviation)",
                "\"--kv_transfer_config\" in args, which vLLM reads as --kv-transfer-config",
                "\"--kv-transfer-config.kv_role\" in args, which vLLM reads as --kv-transfer-config (a dotted member)",
                "\"--kv-tr.kv_connector\" in args, which vLLM reads as --kv-transfer-config (a unique abbreviation, "
                        + "as a dotted member)",
                "\"--kv-o\" in args, an ambiguous abbreviation of --kv-offloading-size that also matches "
                        + "--kv-offloading-backend; vLLM stops at start-up in versions that have that option and reads "
                        + "it as --kv-offloading-size in versions that don't",
                "\"--kv-o\" in args, an ambiguous abbreviation of --kv-offloading-backend that also matches "
                        + "--kv-offloading-size; vLLM stops at start-up in versions that have that option and reads "
                        + "it as --kv-offloading-backend in versions that don't",
                "\"--kv-transfer-config\" in args");
    }

    @Test
    void kvCacheDtypeAbbreviationsNameEveryCompetitorAndTheEngineVariant() {
        List<FlagHit> hits = FlagResolver.find(VLLM, List.of(), List.of("--kv-c"), WATCHED_DTYPE_OWNED);

        assertThat(hits).singleElement().satisfies(hit -> {
            assertThat(hit.competitors()).containsExactly("--kv-cache-dtype-skip-layers", "--kv-cache-memory-bytes",
                    "--kv-cache-metrics", "--kv-cache-metrics-sample");
            assertThat(hit.describe("vLLM-Ascend")).isEqualTo("\"--kv-c\" in args, an ambiguous abbreviation of "
                    + "--kv-cache-dtype that also matches --kv-cache-dtype-skip-layers, --kv-cache-memory-bytes, "
                    + "--kv-cache-metrics and --kv-cache-metrics-sample; vLLM-Ascend stops at start-up in versions "
                    + "that have those options and reads it as --kv-cache-dtype in versions that don't");
        });
    }

    @Test
    void configFilesAreLoadedOnlyForTheExactTwoTokenForm() {
        assertThat(FlagResolver.configFiles(List.of("vllm", "serve", "--config", "x.yaml"))).containsExactly("x.yaml");
        assertThat(FlagResolver.configFiles(List.of("vllm", "serve", "--config=x.yaml"))).isEmpty();
        assertThat(FlagResolver.configFiles(List.of("vllm", "serve", "--conf", "x.yaml"))).isEmpty();
        assertThat(FlagResolver.configFiles(List.of("vllm", "serve", "--config"))).containsExactly("");
        // "--conf" is not a --config that loads a file; as a flag it is ambiguous with --config-format.
        assertThat(FlagResolver.find(VLLM, List.of(), List.of("--conf"), List.of("--config")))
                .singleElement().satisfies(hit -> {
                    assertThat(hit.kind()).isEqualTo(AMBIGUOUS_ABBREVIATION);
                    assertThat(hit.competitors()).containsExactly("--config-format");
                });
    }

    @Test
    void namesAreCutAtEqualsAndDotAndUnderscoresRewrittenBeforeTheDotOnly() {
        assertThat(VLLM.name("--kv_transfer_config.kv_connector_extra_config={\"a_b\":1}")).contains(TRANSFER);
        assertThat(VLLM.name("--kv-tr.kv_connector=X")).contains("--kv-tr");
        assertThat(VLLM.name("--kv_cache_dtype=fp8_e4m3")).contains(DTYPE);
        assertThat(VLLM.name("--KV-CACHE-DTYPE")).contains("--KV-CACHE-DTYPE");
        assertThat(VLLM.name("--model=a.b_c")).contains("--model");
        assertThat(VLLM.name("--")).isEmpty();
        assertThat(VLLM.name("--=x")).isEmpty();
        assertThat(VLLM.name("-tp")).isEmpty();
        assertThat(VLLM.name("serve")).isEmpty();
        assertThat(VLLM.engineName()).isEqualTo("vLLM");
    }

    @Test
    void everyWatchedFlagIsInTheCatalogue() {
        assertThat(VLLM.catalogue()).contains(TRANSFER, DTYPE, OFFLOAD_SIZE, OFFLOAD_BACKEND, "--config");
    }

    @Test
    void everyFlagTheCacheBlendInjectionWritesIsInTheCatalogue() {
        assertThat(VLLM.catalogue()).contains("--attention-backend", "--block-size", "--pipeline-parallel-size",
                "--enforce-eager", "--compilation-config", "--no-enable-chunked-prefill", "--enable-chunked-prefill",
                "--no-async-scheduling", "--async-scheduling", TRANSFER);
    }

    @Test
    void theCatalogueIsTheReferenceListPlusItsDocumentedAdditions() {
        // 257 option strings + --help in the exhaustive sections, the partial 2026 section, and --attention-backend.
        assertThat(VLLM.catalogue()).hasSizeGreaterThan(258).contains("--help", "--model", "--kv-cache-memory-bytes",
                "--kv-cache-dtype-skip-layers", "--config-format");
        assertThat(VLLM.catalogue()).allSatisfy(option -> assertThat(option).startsWith("--").doesNotContain("_"));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Property: FlagResolver agrees with a brute-force model of vLLM's argv rewriting and argparse's matching.

    @Property(tries = 400)
    void findAgreesWithABruteForceModelOfArgparse(@ForAll("scenarios") Scenario scenario) {
        List<FlagHit> actual = FlagResolver.find(VLLM, scenario.command(), scenario.args(), scenario.watched());
        actual.forEach(hit -> Statistics.collect(hit.kind()));

        assertThat(actual).containsExactlyElementsOf(ArgparseModel.expectedHits(scenario, VLLM.catalogue()));
    }

    record Scenario(List<String> command, List<String> args, List<String> watched) {
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        List<String> options = List.copyOf(new TreeSet<>(VLLM.catalogue()));
        List<String> kvOptions = options.stream().filter(o -> o.startsWith("--kv") || o.startsWith("--conf")).toList();
        Arbitrary<String> watchedFlag = Arbitraries.oneOf(Arbitraries.of(options), Arbitraries.of(kvOptions),
                Arbitraries.of(WATCHED_DTYPE_OWNED));
        Arbitrary<List<String>> watched = watchedFlag.list().ofMinSize(1).ofMaxSize(5).uniqueElements();
        return watched.flatMap(flags -> {
            Arbitrary<String> base = Arbitraries.oneOf(Arbitraries.of(flags), Arbitraries.of(flags),
                    Arbitraries.of(options), Arbitraries.of(kvOptions));
            Arbitrary<String> token = Arbitraries.oneOf(
                    Combinators.combine(base, Arbitraries.integers().between(0, 100),
                                    Arbitraries.integers().between(0, 7),
                                    Arbitraries.of("", "=x", "={\"kv_role\":\"kv_producer\"}", "=--kv-t", ".kv_role=x",
                                            ".kv_connector", "==", ".a.b_c=1"),
                                    Arbitraries.integers().between(0, 9))
                            .as(VllmFlagGrammarTest::spell),
                    Arbitraries.of("--", "--=x", "serve", "-O3", "-kv-t", "--.x=1", "", "--_", "---kv-t"));
            Arbitrary<List<String>> argv = token.list().ofMaxSize(5);
            return Combinators.combine(argv, argv).as((command, args) -> new Scenario(command, args, flags));
        });
    }

    /** Spells a catalogue option: cut to a prefix, underscores for dashes, a suffix, sometimes broken on purpose. */
    private static String spell(String option, int cutPercent, int underscoreMask, String suffix, int mangle) {
        int length = cutPercent >= 50 ? option.length() : 3 + (option.length() - 3) * cutPercent / 50;
        StringBuilder spelled = new StringBuilder(option.substring(0, Math.max(3, length)));
        int dashes = 0;
        for (int i = 2; i < spelled.length(); i++) {
            if (spelled.charAt(i) == '-' && ((underscoreMask >> (dashes++ % 3)) & 1) == 1) {
                spelled.setCharAt(i, '_');
            }
        }
        String token = spelled + suffix;
        return switch (mangle) {
            case 0 -> token.substring(1);
            case 1 -> token.toUpperCase(java.util.Locale.ROOT);
            default -> token;
        };
    }

    /**
     * An independent model: vLLM's own preprocessing (the regex it uses for the underscore rewrite, then the dotted
     * split), then CPython argparse's option lookup (exact match, else every option the string is a prefix of), then
     * the D2 rule that a proper prefix counts as the watched flag whether or not argparse would find it ambiguous.
     */
    static final class ArgparseModel {
        private static final Pattern AFTER_DASHES = Pattern.compile("(?<=--)[^.]*");

        static List<FlagHit> expectedHits(Scenario scenario, Set<String> catalogue) {
            List<String> argv = new ArrayList<>(scenario.command());
            argv.addAll(scenario.args());
            List<FlagHit> hits = new ArrayList<>();
            for (int i = 0; i < argv.size(); i++) {
                String token = argv.get(i);
                Optional<String> option = optionString(token);
                if (option.isEmpty()) {
                    continue;
                }
                String o = option.get();
                TreeSet<String> candidates = new TreeSet<>();
                for (String c : catalogue) {
                    if (c.startsWith(o)) {
                        candidates.add(c);
                    }
                }
                String written = token.split("=", 2)[0];
                for (String w : new LinkedHashSet<>(scenario.watched())) {
                    boolean inCommand = i < scenario.command().size();
                    if (o.equals(w)) {
                        hits.add(new FlagHit(i, inCommand, written, w, written.equals(w) ? EXACT : NORMALISED, List.of()));
                    } else if (!catalogue.contains(o) && candidates.contains(w)) {
                        List<String> others = candidates.stream().filter(c -> !c.equals(w)).toList();
                        hits.add(new FlagHit(i, inCommand, written, w,
                                others.isEmpty() ? UNIQUE_ABBREVIATION : AMBIGUOUS_ABBREVIATION, others));
                    }
                }
            }
            return hits;
        }

        /** What argparse compares with its options after vLLM's rewriting, or empty for a non-option. */
        private static Optional<String> optionString(String token) {
            if (!token.startsWith("--")) {
                return Optional.empty();
            }
            String[] keyValue = token.split("=", 2);
            Matcher m = AFTER_DASHES.matcher(keyValue[0]);
            String key = m.find()
                    ? keyValue[0].substring(0, m.start()) + m.group().replace("_", "-") + keyValue[0].substring(m.end())
                    : keyValue[0];
            String flag = key.split("\\.", -1)[0];
            return flag.equals("--") ? Optional.empty() : Optional.of(flag);
        }
    }
}
