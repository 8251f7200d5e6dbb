package io.kvcacheinjector.engines.sglang;

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

/** Which tokens SGLang's plain argparse reads as the watched flags (docs/reference/flag-grammar.md). */
class SglangFlagGrammarTest {

    private static final SglangFlagGrammar SGLANG = SglangFlagGrammar.INSTANCE;

    private static final String BACKEND = "--hicache-storage-backend";
    private static final String DTYPE = "--kv-cache-dtype";
    private static final String EXTRA_CONFIG = "--hicache-storage-backend-extra-config";
    private static final String HIERARCHICAL = "--enable-hierarchical-cache";

    /** The Pod path's watched flags in check order (owned, dtype while owned, config source). */
    private static final List<String> WATCHED = List.of(BACKEND, DTYPE, EXTRA_CONFIG);

    private record Reading(String flag, FlagReadingKind kind) {
    }

    private static Reading r(String flag, FlagReadingKind kind) {
        return new Reading(flag, kind);
    }

    static Stream<Arguments> spellings() {
        return Stream.of(
                Arguments.of("--hicache-storage-backend", List.of(r(BACKEND, EXACT))),
                Arguments.of("--hicache-storage-backend=mooncake", List.of(r(BACKEND, EXACT))),
                Arguments.of("--hicache-storage-backend-extra-config={\"master_server_address\":\"m:50051\"}",
                        List.of(r(EXTRA_CONFIG, EXACT))),
                Arguments.of("--kv-cache-dtype=fp8_e4m3", List.of(r(DTYPE, EXACT))),
                // the trailing dash abbreviates only the extra-config flag
                Arguments.of("--hicache-storage-backend-", List.of(r(EXTRA_CONFIG, UNIQUE_ABBREVIATION))),
                Arguments.of("--hicache-storage-backend-e=x", List.of(r(EXTRA_CONFIG, UNIQUE_ABBREVIATION))),
                Arguments.of("--kv-cac", List.of(r(DTYPE, UNIQUE_ABBREVIATION))),
                Arguments.of("--kv-cache-dtyp", List.of(r(DTYPE, UNIQUE_ABBREVIATION))),
                // SGLang >= 0.5.15 has --kv-canary, --kv-canary-real-data and --kv-canary-sweep-interval
                Arguments.of("--kv-c", List.of(r(DTYPE, AMBIGUOUS_ABBREVIATION))),
                Arguments.of("--kv-ca=fp8_e4m3", List.of(r(DTYPE, AMBIGUOUS_ABBREVIATION))),
                Arguments.of("--kv-canary", List.of()),
                // ambiguous: both storage flags named, in watched order
                Arguments.of("--hicache-storage-b", List.of(r(BACKEND, AMBIGUOUS_ABBREVIATION),
                        r(EXTRA_CONFIG, AMBIGUOUS_ABBREVIATION))),
                Arguments.of("--hicache-storage", List.of(r(BACKEND, AMBIGUOUS_ABBREVIATION),
                        r(EXTRA_CONFIG, AMBIGUOUS_ABBREVIATION))),
                Arguments.of("--hicache-s=x", List.of(r(BACKEND, AMBIGUOUS_ABBREVIATION),
                        r(EXTRA_CONFIG, AMBIGUOUS_ABBREVIATION))),
                Arguments.of("--kv", List.of(r(DTYPE, AMBIGUOUS_ABBREVIATION))),
                // SGLang rewrites nothing: no underscores, no dotted members, no case folding
                Arguments.of("--hicache_storage_backend=mooncake", List.of()),
                Arguments.of("--kv_cache_dtype", List.of()),
                Arguments.of("--kv_c", List.of()),
                Arguments.of("--hicache-storage-backend.x=1", List.of()),
                Arguments.of("--KV-CACHE-DTYPE", List.of()),
                // neighbours and flags SGLang doesn't own
                Arguments.of("--hicache-storage-prefetch-policy", List.of()),
                Arguments.of("--hicache-size", List.of()),
                Arguments.of("--kv-events-config", List.of()),
                Arguments.of("--kv-transfer-config", List.of()),
                Arguments.of("--hicache-storage-backend-extra-configs", List.of()),
                Arguments.of("-hicache-storage-backend", List.of()),
                Arguments.of("mooncake", List.of()),
                Arguments.of("--", List.of()),
                Arguments.of("--=--kv-c", List.of()));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("spellings")
    void readsEachSpellingAsSglangDoes(String token, List<Reading> expected) {
        List<FlagHit> hits = FlagResolver.find(SGLANG, List.of("python3", "-m", "sglang.launch_server"),
                List.of(token), WATCHED);

        assertThat(hits.stream().map(hit -> r(hit.flag(), hit.kind())).toList()).containsExactlyElementsOf(expected);
        String written = token.contains("=") ? token.substring(0, token.indexOf('=')) : token;
        assertThat(hits).allSatisfy(hit -> {
            assertThat(hit.argvIndex()).isEqualTo(3);
            assertThat(hit.inCommand()).isFalse();
            assertThat(hit.written()).isEqualTo(written);
        });
    }

    @Test
    void theExactBackendFlagIsNeverTheConfigSourceFlag() {
        assertThat(FlagResolver.find(SGLANG, List.of(), List.of("--hicache-storage-backend", "mooncake"), List.of(EXTRA_CONFIG)))
                .isEmpty();
        assertThat(FlagResolver.present(SGLANG, List.of("--hicache-storage-backend"), EXTRA_CONFIG)).isFalse();
    }

    @Test
    void describesTheAmbiguousStorageAbbreviationWithItsCompetitors() {
        List<FlagHit> hits = FlagResolver.find(SGLANG, List.of(), List.of("--hicache-storage-b=mooncake"), WATCHED);

        assertThat(hits).extracting(hit -> hit.describe("SGLang")).containsExactly(
                "\"--hicache-storage-b\" in args, an ambiguous abbreviation of --hicache-storage-backend that also "
                        + "matches --hicache-storage-backend-extra-config; SGLang stops at start-up in versions that "
                        + "have that option and reads it as --hicache-storage-backend in versions that don't",
                "\"--hicache-storage-b\" in args, an ambiguous abbreviation of --hicache-storage-backend-extra-config "
                        + "that also matches --hicache-storage-backend; SGLang stops at start-up in versions that have "
                        + "that option and reads it as --hicache-storage-backend-extra-config in versions that don't");
    }

    @Test
    void describesTheKvCanaryCollisionAsAmbiguous() {
        List<FlagHit> hits = FlagResolver.find(SGLANG, List.of(), List.of("--kv-c", "fp8_e4m3"), WATCHED);

        assertThat(hits).extracting(hit -> hit.describe("SGLang")).containsExactly(
                "\"--kv-c\" in args, an ambiguous abbreviation of --kv-cache-dtype that also matches --kv-canary, "
                        + "--kv-canary-real-data and --kv-canary-sweep-interval; SGLang stops at start-up in versions "
                        + "that have those options and reads it as --kv-cache-dtype in versions that don't");
    }

    @Test
    void aPrefixUniqueInOneSupportedReleaseAndAmbiguousInOthersNamesTheReleases() {
        // --kv-canary* arrived in SGLang 0.5.15: "--kv-ca" reads as --kv-cache-dtype in 0.5.11 and stops 0.5.15 on.
        assertThat(SGLANG.releases()).containsExactly("0.5.11", "0.5.15", "0.5.23");
        assertThat(SGLANG.releasesOf("--kv-canary")).containsExactly("0.5.15", "0.5.23");
        for (String token : List.of("--kv-c", "--kv-ca")) {
            List<FlagHit> hits = FlagResolver.find(SGLANG, List.of(), List.of(token, "fp8_e4m3"), WATCHED);

            assertThat(hits).extracting(hit -> hit.describe(SGLANG)).containsExactly(
                    "\"" + token + "\" in args, an ambiguous abbreviation of --kv-cache-dtype that also matches "
                            + "--kv-canary, --kv-canary-real-data and --kv-canary-sweep-interval; it is unique in "
                            + "SGLang 0.5.11, which reads it as --kv-cache-dtype, and ambiguous in SGLang 0.5.15 and "
                            + "0.5.23, which have those options and stop at start-up");
        }
    }

    @Test
    void aPrefixAmbiguousInEverySupportedReleaseSaysSo() {
        List<FlagHit> hits = FlagResolver.find(SGLANG, List.of(), List.of("--hicache-storage-b=mooncake"),
                List.of(BACKEND));

        assertThat(hits).extracting(hit -> hit.describe(SGLANG)).containsExactly(
                "\"--hicache-storage-b\" in args, an ambiguous abbreviation of --hicache-storage-backend that also "
                        + "matches --hicache-storage-backend-extra-config; SGLang stops at start-up in every supported "
                        + "release (0.5.11, 0.5.15 and 0.5.23) and reads it as --hicache-storage-backend only in "
                        + "versions without that option");
    }

    @Test
    void describesExactAndUniqueReadingsWithoutRepeatingTheFlag() {
        List<FlagHit> hits = FlagResolver.find(SGLANG, List.of("--kv-cache-dtype"), List.of("--hicache-storage-backend-"),
                WATCHED);

        assertThat(hits).extracting(hit -> hit.describe("SGLang")).containsExactly(
                "\"--kv-cache-dtype\" in command",
                "\"--hicache-storage-backend-\" in args, which SGLang reads as --hicache-storage-backend-extra-config "
                        + "(a unique abbreviation)");
    }

    @Test
    void findsTheHierarchicalCacheInAnySpellingTheEngineReadsAsIt() {
        assertThat(FlagResolver.present(SGLANG, List.of("--enable-hierarchical-cache"), HIERARCHICAL)).isTrue();
        assertThat(FlagResolver.present(SGLANG, List.of("--model-path", "m", "--enable-hie"), HIERARCHICAL)).isTrue();
        assertThat(FlagResolver.present(SGLANG, List.of("--enable-h"), HIERARCHICAL)).isTrue();
        assertThat(FlagResolver.present(SGLANG, List.of("--enable_hierarchical_cache"), HIERARCHICAL)).isFalse();
        assertThat(FlagResolver.present(SGLANG, List.of("--enable-http2", "--enable-hisparse"), HIERARCHICAL)).isFalse();
        assertThat(FlagResolver.present(SGLANG, List.of("-enable-hierarchical-cache"), HIERARCHICAL)).isFalse();

        // SGLang 0.5.23: --enable-hicache is the same argparse action, so it and its unique abbreviations set it
        assertThat(FlagResolver.present(SGLANG, List.of("--enable-hicache"), HIERARCHICAL)).isTrue();
        assertThat(FlagResolver.present(SGLANG, List.of("--enable-hic"), HIERARCHICAL)).isTrue();
        assertThat(FlagResolver.present(SGLANG, List.of("--enable-hicach"), HIERARCHICAL)).isTrue();
        assertThat(FlagResolver.present(SGLANG, List.of("--enable-hicaches"), HIERARCHICAL)).isFalse();
        assertThat(FlagResolver.present(SGLANG, List.of("--enable_hicache"), HIERARCHICAL)).isFalse();
        assertThat(SGLANG.aliases(HIERARCHICAL)).containsExactly("--enable-hicache");
        assertThat(SGLANG.aliases("--enable-hicache")).containsExactly(HIERARCHICAL);
        assertThat(SGLANG.aliases(BACKEND)).isEmpty();

        assertThat(FlagResolver.find(SGLANG, List.of(), List.of("--enable-hie", "--enable-h"), List.of(HIERARCHICAL)))
                .satisfiesExactly(
                        unique -> assertThat(unique.kind()).isEqualTo(UNIQUE_ABBREVIATION),
                        ambiguous -> assertThat(ambiguous.competitors()).containsExactly("--enable-hicache",
                                "--enable-hisparse", "--enable-http-worker-reuseport", "--enable-http2"));
    }

    /**
     * A prefix both names share is ambiguous, as argparse finds it: CPython's argparse (3.11 through 3.14; SGLang
     * 0.5.23 needs Python 3.11 or later) counts every matching option string, and two strings of one action are two
     * matches. In 0.5.23 every such prefix also matches --enable-hisparse.
     */
    @Test
    void aPrefixBothNamesShareIsAmbiguous() {
        assertThat(FlagResolver.find(SGLANG, List.of(), List.of("--enable-hi"), List.of(HIERARCHICAL)))
                .singleElement().satisfies(hit -> {
                    assertThat(hit.kind()).isEqualTo(AMBIGUOUS_ABBREVIATION);
                    assertThat(hit.competitors()).containsExactly("--enable-hicache", "--enable-hisparse");
                });
    }

    @Test
    void configFilesAreLoadedOnlyForTheExactConfigToken() {
        assertThat(FlagResolver.configFiles(List.of("python3", "-m", "sglang.launch_server", "--config", "x.yaml")))
                .containsExactly("x.yaml");
        assertThat(FlagResolver.configFiles(List.of("--config=x.yaml", "--conf", "x.yaml"))).isEmpty();
    }

    @Test
    void namesAreCutAtEqualsOnly() {
        assertThat(SGLANG.name("--hicache_storage_backend=mooncake")).contains("--hicache_storage_backend");
        assertThat(SGLANG.name("--hicache-storage-backend.x=1")).contains("--hicache-storage-backend.x");
        assertThat(SGLANG.name("--")).isEmpty();
        assertThat(SGLANG.name("--=x")).isEmpty();
        assertThat(SGLANG.name("-tp")).isEmpty();
        assertThat(SGLANG.engineName()).isEqualTo("SGLang");
    }

    @Test
    void everyWatchedFlagIsInTheCatalogue() {
        assertThat(SGLANG.catalogue()).contains(BACKEND, EXTRA_CONFIG, DTYPE, HIERARCHICAL, "--config");
        assertThat(SGLANG.catalogue()).hasSizeGreaterThan(378).contains("--help", "--model-path", "--enable-http2",
                "--enable-hisparse", "--hicache-storage-prefetch-policy");
        // SGLang 0.5.23
        assertThat(SGLANG.catalogue()).contains("--enable-hicache", "--kv-canary", "--kv-canary-real-data",
                "--kv-canary-sweep-interval", "--enable-unified-cache-external-linker");
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Property: FlagResolver agrees with a brute-force model of argparse's matching (SGLang rewrites nothing).

    @Property(tries = 400)
    void findAgreesWithABruteForceModelOfArgparse(@ForAll("scenarios") Scenario scenario) {
        List<FlagHit> actual = FlagResolver.find(SGLANG, scenario.command(), scenario.args(), scenario.watched());
        actual.forEach(hit -> Statistics.collect(hit.kind()));

        assertThat(actual).containsExactlyElementsOf(expectedHits(scenario, SGLANG.catalogue()));
        assertThat(actual).noneMatch(hit -> hit.kind() == NORMALISED);
    }

    record Scenario(List<String> command, List<String> args, List<String> watched) {
    }

    @Provide
    Arbitrary<Scenario> scenarios() {
        List<String> options = List.copyOf(new TreeSet<>(SGLANG.catalogue()));
        List<String> near = options.stream()
                .filter(o -> o.startsWith("--hicache") || o.startsWith("--kv") || o.startsWith("--enable-h"))
                .toList();
        Arbitrary<String> watchedFlag = Arbitraries.oneOf(Arbitraries.of(options), Arbitraries.of(near),
                Arbitraries.of(BACKEND, DTYPE, EXTRA_CONFIG, HIERARCHICAL));
        Arbitrary<List<String>> watched = watchedFlag.list().ofMinSize(1).ofMaxSize(5).uniqueElements();
        return watched.flatMap(flags -> {
            Arbitrary<String> base = Arbitraries.oneOf(Arbitraries.of(flags), Arbitraries.of(flags),
                    Arbitraries.of(options), Arbitraries.of(near));
            Arbitrary<String> token = Arbitraries.oneOf(
                    Combinators.combine(base, Arbitraries.integers().between(0, 100),
                                    Arbitraries.integers().between(0, 7),
                                    Arbitraries.of("", "=x", "={\"a\":1}", "=--kv-c", ".x=1", "=="),
                                    Arbitraries.integers().between(0, 9))
                            .as(SglangFlagGrammarTest::spell),
                    Arbitraries.of("--", "--=x", "mooncake", "-m", "-kv-c", "", "--_"));
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
     * An independent model: CPython argparse's option lookup (exact match of the string or of its part before '=',
     * else every option the part before '=' is a prefix of), then the D2 rule that a proper prefix counts as the
     * watched flag whether or not argparse would find it ambiguous.
     */
    private static List<FlagHit> expectedHits(Scenario scenario, Set<String> catalogue) {
        List<String> argv = new ArrayList<>(scenario.command());
        argv.addAll(scenario.args());
        List<FlagHit> hits = new ArrayList<>();
        for (int i = 0; i < argv.size(); i++) {
            String token = argv.get(i);
            Optional<String> option = token.startsWith("--") && !token.split("=", 2)[0].equals("--")
                    ? Optional.of(token.split("=", 2)[0]) : Optional.empty();
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
            for (String w : new LinkedHashSet<>(scenario.watched())) {
                boolean inCommand = i < scenario.command().size();
                if (o.equals(w)) {
                    hits.add(new FlagHit(i, inCommand, o, w, EXACT, List.of()));
                } else if (!catalogue.contains(o) && candidates.contains(w)) {
                    List<String> others = candidates.stream().filter(c -> !c.equals(w)).toList();
                    hits.add(new FlagHit(i, inCommand, o, w,
                            others.isEmpty() ? UNIQUE_ABBREVIATION : AMBIGUOUS_ABBREVIATION, others));
                }
            }
        }
        return hits;
    }
}
