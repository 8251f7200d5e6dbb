package io.kvcacheinjector.domain.flags;

import static io.kvcacheinjector.domain.flags.FlagReadingKind.AMBIGUOUS_ABBREVIATION;
import static io.kvcacheinjector.domain.flags.FlagReadingKind.EXACT;
import static io.kvcacheinjector.domain.flags.FlagReadingKind.NORMALISED;
import static io.kvcacheinjector.domain.flags.FlagReadingKind.UNIQUE_ABBREVIATION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The shared resolution rules (docs/reference/flag-grammar.md) on a tiny fake grammar, so the rules are pinned independently of any real
 * engine catalogue. The fake lower-cases nothing, cuts at {@code =} and rewrites {@code _} to {@code -}.
 */
class FlagResolverTest {

    /** A five-option engine: one exact option is a proper prefix of another, as on SGLang. */
    private static final FlagGrammar TOY = new FlagGrammar() {
        @Override
        public String engineName() {
            return "Toy";
        }

        @Override
        public Optional<String> name(String token) {
            if (!token.startsWith("--")) {
                return Optional.empty();
            }
            int eq = token.indexOf('=');
            String name = "--" + (eq < 0 ? token.substring(2) : token.substring(2, eq)).replace('_', '-');
            return name.equals("--") ? Optional.empty() : Optional.of(name);
        }

        @Override
        public Set<String> catalogue() {
            return Set.of("--store", "--store-extra", "--stride", "--dtype", "--dtype-skip", "--model");
        }
    };

    /** A grammar that breaks its contract: it hands the resolver a bare "--" and single-dash names. */
    private static final FlagGrammar CARELESS = new FlagGrammar() {
        @Override
        public String engineName() {
            return "Careless";
        }

        @Override
        public Optional<String> name(String token) {
            return Optional.of(token);
        }

        @Override
        public Set<String> catalogue() {
            return TOY.catalogue();
        }
    };

    private static List<FlagHit> find(List<String> command, List<String> args, String... watched) {
        return FlagResolver.find(TOY, command, args, Arrays.asList(watched));
    }

    @Test
    void exactTokenAndExactTokenWithValueAreExactHits() {
        List<FlagHit> hits = find(List.of(), List.of("--store", "x", "--store={\"a\":1}"), "--store");

        assertThat(hits).extracting(FlagHit::argvIndex, FlagHit::written, FlagHit::kind)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0, "--store", EXACT),
                        org.assertj.core.groups.Tuple.tuple(2, "--store", EXACT));
        assertThat(hits.get(1).describe("Toy")).isEqualTo("\"--store\" in args");
    }

    @Test
    void aSpellingTheGrammarRewritesIsNormalisedAndSaysWhatTheEngineReads() {
        List<FlagHit> hits = find(List.of(), List.of("--dty_pe=fp8"), "--dty-pe");
        // "--dty-pe" is not in the catalogue, but the rules do not need it to be for an exact reading.
        assertThat(hits).singleElement().satisfies(hit -> {
            assertThat(hit.kind()).isEqualTo(NORMALISED);
            assertThat(hit.written()).isEqualTo("--dty_pe");
            assertThat(hit.describe("Toy")).isEqualTo("\"--dty_pe\" in args, which Toy reads as --dty-pe");
        });
    }

    @Test
    void anotherExactOptionWinsOverThePrefixRule() {
        // "--store" is a proper prefix of "--store-extra" but is an option of its own.
        assertThat(find(List.of(), List.of("--store", "--store=x"), "--store-extra")).isEmpty();
        // "--dtype-skip" starts with "--dtype" but is a longer, different option.
        assertThat(find(List.of(), List.of("--dtype-skip", "--dtype_skip=1"), "--dtype")).isEmpty();
    }

    @Test
    void aProperPrefixOfOnlyTheWatchedFlagIsAUniqueAbbreviation() {
        assertThat(find(List.of(), List.of("--mod=m"), "--model")).singleElement().satisfies(hit -> {
            assertThat(hit.kind()).isEqualTo(UNIQUE_ABBREVIATION);
            assertThat(hit.competitors()).isEmpty();
            assertThat(hit.describe("Toy")).isEqualTo("\"--mod\" in args, which Toy reads as --model (a unique abbreviation)");
        });
        // A trailing dash after an exact option abbreviates only the longer option.
        assertThat(find(List.of(), List.of("--store-"), "--store", "--store-extra"))
                .extracting(FlagHit::flag, FlagHit::kind)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("--store-extra", UNIQUE_ABBREVIATION));
    }

    @Test
    void aPrefixOfSeveralOptionsIsAnAmbiguousAbbreviationNamingTheSortedCompetitors() {
        List<FlagHit> hits = find(List.of("--st"), List.of(), "--store-extra");

        assertThat(hits).singleElement().satisfies(hit -> {
            assertThat(hit.kind()).isEqualTo(AMBIGUOUS_ABBREVIATION);
            assertThat(hit.inCommand()).isTrue();
            assertThat(hit.competitors()).containsExactly("--store", "--stride");
            assertThat(hit.describe("Toy")).isEqualTo("\"--st\" in command, an ambiguous abbreviation of "
                    + "--store-extra that also matches --store and --stride; Toy stops at start-up in versions that "
                    + "have those options and reads it as --store-extra in versions that don't");
        });
        assertThat(find(List.of(), List.of("--dt"), "--dtype")).singleElement()
                .satisfies(hit -> assertThat(hit.describe("Toy")).contains("also matches --dtype-skip; Toy stops "
                        + "at start-up in versions that have that option and reads it as --dtype"));
    }

    /** TOY with three releases: --stride arrived in 2, --dtype-skip only in 3, --store-extra is in 2 and 3. */
    private static final FlagGrammar RELEASED = new FlagGrammar() {
        private final FlagCatalogue.Listing listing = FlagCatalogue.parseListing(List.of(
                "# GENERATED by tools/fidelity/run --regenerate from the real parsers of: toy 1, toy 2, toy 3",
                "--store", "--store-extra 2..3", "--stride 2..3", "--dtype", "--dtype-skip 3..3", "--model"));

        @Override
        public String engineName() {
            return "Toy";
        }

        @Override
        public Optional<String> name(String token) {
            return TOY.name(token);
        }

        @Override
        public Set<String> catalogue() {
            return listing.options();
        }

        @Override
        public List<String> releases() {
            return listing.releases();
        }

        @Override
        public List<String> releasesOf(String option) {
            return listing.releasesOf(option);
        }
    };

    @Test
    void anAmbiguousAbbreviationNamesTheSupportedReleasesItIsUniqueAndAmbiguousIn() {
        assertThat(FlagResolver.find(RELEASED, List.of(), List.of("--dt"), List.of("--dtype"))).singleElement()
                .satisfies(hit -> assertThat(hit.describe(RELEASED)).isEqualTo("\"--dt\" in args, an ambiguous "
                        + "abbreviation of --dtype that also matches --dtype-skip; it is unique in Toy 1 and 2, which "
                        + "read it as --dtype, and ambiguous in Toy 3, which has that option and stops at start-up"));
        // --store-extra is not in release 1, so "every supported release" would be wrong: it says which.
        assertThat(FlagResolver.find(RELEASED, List.of(), List.of("--st"), List.of("--store-extra"))).singleElement()
                .satisfies(hit -> assertThat(hit.describe(RELEASED)).isEqualTo("\"--st\" in args, an ambiguous "
                        + "abbreviation of --store-extra that also matches --store and --stride; Toy stops at start-up "
                        + "in every supported release that has --store-extra (2 and 3) and reads it as --store-extra "
                        + "only in versions without those options"));
        // A grammar without releases keeps the release-free wording.
        assertThat(FlagResolver.find(TOY, List.of(), List.of("--dt"), List.of("--dtype"))).singleElement()
                .satisfies(hit -> assertThat(hit.describe(TOY)).isEqualTo(hit.describe("Toy")));
    }

    @Test
    void oneNameAbbreviatingSeveralWatchedFlagsCountsAsEachInTheOrderGiven() {
        List<FlagHit> hits = find(List.of(), List.of("--s"), "--stride", "--store-extra", "--store", "--model");

        assertThat(hits).extracting(FlagHit::flag).containsExactly("--stride", "--store-extra", "--store");
        assertThat(hits).allSatisfy(hit -> {
            assertThat(hit.argvIndex()).isZero();
            assertThat(hit.kind()).isEqualTo(AMBIGUOUS_ABBREVIATION);
            assertThat(hit.competitors()).doesNotContain(hit.flag());
        });
        assertThat(hits.get(2).competitors()).containsExactly("--store-extra", "--stride");
    }

    @Test
    void hitsComeInArgvOrderCommandFirstWithIndicesIntoTheWholeArgv() {
        List<FlagHit> hits = find(List.of("tini", "--", "--model"), List.of("serve", "--sto", "--model=m"),
                "--model", "--store");

        assertThat(hits).extracting(FlagHit::argvIndex, FlagHit::inCommand, FlagHit::flag)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(2, true, "--model"),
                        org.assertj.core.groups.Tuple.tuple(4, false, "--store"),
                        org.assertj.core.groups.Tuple.tuple(5, false, "--model"));
    }

    @Test
    void singleDashBareValuesAndTheBareDoubleDashNeverMatch() {
        assertThat(find(List.of("-", "--", "--=x", "-model", "model", "-m"), List.of("", "--MODEL"), "--model"))
                .isEmpty();
    }

    @Test
    void theResolverDoesNotTrustAGrammarThatLetsABareDoubleDashThrough() {
        assertThat(FlagResolver.find(CARELESS, List.of("--", "-", "-mod"), List.of(), List.of("--model"))).isEmpty();
        assertThat(FlagResolver.present(CARELESS, List.of("--", "-"), "--model")).isFalse();
    }

    @Test
    void aNullEntryIsSkippedRatherThanCrashing() {
        List<String> args = new ArrayList<>();
        args.add(null);
        args.add("--model");
        assertThat(FlagResolver.find(TOY, List.of(), args, List.of("--model")))
                .extracting(FlagHit::argvIndex).containsExactly(1);
        assertThat(FlagResolver.configFiles(Arrays.asList("--config", null))).containsExactly("");
    }

    @Test
    void aWatchedFlagListedTwiceIsReportedOnce() {
        assertThat(find(List.of(), List.of("--model"), "--model", "--model")).hasSize(1);
    }

    @Test
    void presentAcceptsEverySpellingTheRulesAccept() {
        assertThat(FlagResolver.present(TOY, List.of("x", "--mo"), "--model")).isTrue();
        assertThat(FlagResolver.present(TOY, List.of("--st"), "--store-extra")).isTrue();
        assertThat(FlagResolver.present(TOY, List.of("--store"), "--store-extra")).isFalse();
        assertThat(FlagResolver.present(TOY, List.of("--models"), "--model")).isFalse();
        assertThat(FlagResolver.present(TOY, List.of(), "--model")).isFalse();
    }

    @Test
    void configFilesAreTheOperandsOfTheExactConfigTokenOnly() {
        assertThat(FlagResolver.configFiles(List.of("vllm", "serve", "--config", "x.yaml", "--config=y.yaml",
                "--conf", "z.yaml", "--CONFIG", "w.yaml", "--config", "--config"))).containsExactly("x.yaml", "--config", "");
        assertThat(FlagResolver.configFiles(List.of("--config"))).containsExactly("");
        assertThat(FlagResolver.configFiles(List.of("-config", "a", "config", "b"))).isEmpty();
    }

    @Test
    void describeQuotesTheTokenAndEscapesControlCharacters() {
        FlagHit hit = new FlagHit(0, false, "--mo\tdel\u0007\"\\\u007f", "--model", NORMALISED, List.of());
        assertThat(hit.describe("Toy")).startsWith("\"--mo\\tdel\\u0007\\\"\\\\\\u007f\" in args, which Toy reads");
    }

    @Test
    void aHitIsAmbiguousExactlyWhenItHasCompetitors() {
        assertThatThrownBy(() -> new FlagHit(0, true, "--s", "--store", AMBIGUOUS_ABBREVIATION, List.of()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FlagHit(0, true, "--s", "--store", UNIQUE_ABBREVIATION, List.of("--stride")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
