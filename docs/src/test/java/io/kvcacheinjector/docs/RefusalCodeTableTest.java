package io.kvcacheinjector.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.Webhook;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code docs/reference/refusal-codes.md} equal to the table generated from {@link ReasonCode}, and the code
 * set equal to the catalogue of the specification ({@code ../shared/reference/refusals.md}, when present). Run with
 * {@code -Ddocs.update=true} to regenerate the table.
 */
class RefusalCodeTableTest {
    private static final Path TABLE = Path.of("reference", "refusal-codes.md");
    /** Codes this project added to the specification's catalogue (each documented in the table). */
    private static final Set<String> OURS = Set.of("pod-unreadable", "plugin-name-taken",
            "warn-namespace-not-privileged", "warn-images-mismatched", "external-linker-conflict",
            "warn-tenant-unread");

    static String generate() {
        StringBuilder b = new StringBuilder();
        b.append("# Refusal, skip and warning codes\n\n");
        b.append("<!-- Generated from io.kvcacheinjector.domain.ReasonCode by docs/src/test/java/io/kvcacheinjector/docs/RefusalCodeTableTest.java;\n");
        b.append("     regenerate with: bin/mvn -o -pl docs test -Ddocs.update=true -->\n\n");
        b.append("Every way a webhook of this project turns a Pod away, skips it, or admits it with a caveat has a stable code. The code\n");
        b.append("starts the message, and appears unchanged in the audit annotation (`refusal`, `skip-reason`, `warnings`), the log\n");
        b.append("line's `reason`/`warnings` and the `reason` label of `kvcache_injector_admissions_total`. Within one webhook the\n");
        b.append("codes are listed in check order: the first failing check answers. The freeze reports every failure, joined by\n");
        b.append("commas in table order. Messages are written for the Pod's author and may improve between releases; codes never\n");
        b.append("change meaning. Every message names the object and the value as written (double-quoted, control characters\n");
        b.append("escaped), says what the engine would do with it, and ends with the fix.\n\n");
        for (Webhook w : Webhook.values()) {
            b.append("## `").append(w.path()).append("`\n\n");
            b.append("| Code | Kind | Fires when | Fix |\n|---|---|---|---|\n");
            for (ReasonCode c : ReasonCode.values()) {
                if (c.webhooks().contains(w)) {
                    String kind = switch (c.kind()) {
                        case REFUSAL -> "refusal";
                        case SKIP -> "skip (refusal when fail-closed)";
                        case WARNING -> "warning";
                    };
                    b.append("| `").append(c.id()).append("` | ").append(kind).append(" | ")
                            .append(c.firesWhen().replace("|", "\\|")).append(" | ")
                            .append(c.fix().replace("|", "\\|")).append(" |\n");
                }
            }
            b.append('\n');
        }
        b.append("`pod-unreadable` is this project's addition: the object under review has a field of the wrong JSON type, so no\n");
        b.append("decision about it can be shown to take effect. The API server never sends such a Pod; the code exists so that a\n");
        b.append("hostile or broken client gets a coded refusal instead of an error or an admission.\n\n");
        b.append("`plugin-name-taken` is this project's addition too: the Pod already uses a name CacheBlend writes (an app\n");
        b.append("container named `cb-plugin-stage`, another volume mounted at `/cb-plugin` on the target, or, when the engine wires\n");
        b.append("the host's `/dev/shm` by hostPath, a volume named `lmcache-dev-shm` that is not a hostPath), so the injected Pod\n");
        b.append("would be rejected by the API server for a duplicate name or mount path. Upstream checks only init containers\n");
        b.append("and mount names, and produces such a Pod.\n\n");
        b.append("`external-linker-conflict` is this project's addition: SGLang 0.5.23's\n");
        b.append("`--enable-unified-cache-external-linker` (direct L3, no host tier) is rejected after parsing together with\n");
        b.append("`--enable-hierarchical-cache` and `--hicache-storage-backend`, both of which the injection writes, so an injected\n");
        b.append("Pod carrying it would stop at start-up with an error far from its cause. It is refused before the Pod is\n");
        b.append("created instead, in any spelling SGLang reads as the flag.\n\n");
        b.append("`warn-tenant-unread` is this project's addition too: the engine states (engine SPI `readsTenant()`) that it\n");
        b.append("does not read the injected tenant, as vLLM-Ascend up to 0.23.0.post1 does not read `tenant_id` from the\n");
        b.append("Mooncake file, and the pool keeps a tenant ledger, so the Pod writes as Mooncake's tenant `default` while its\n");
        b.append("record says `tenantInjected: true` (see `../explanation/tenant-compatibility.md`). The Pod is admitted.\n\n");
        b.append("`warn-namespace-not-privileged` and `warn-images-mismatched` are this project's additions: two of the\n");
        b.append("specification's common CacheBlend mistakes that the webhook can see cheaply. The first reads the Pod's\n");
        b.append("Namespace from an informer (no live read; without it, no warning), the second compares the engine's\n");
        b.append("`spec.image.tag` with its `spec.injection.payloadImage.tag` when both are known. The third mistake, a pull\n");
        b.append("Secret missing from the workload namespace, needs Secrets the webhook never reads: `kvcache-injector check`\n");
        b.append("reports it (`pull-secret-missing`, see `check.md`).\n");
        return b.toString();
    }

    @Test
    void theDocsTableIsGeneratedFromTheCode() throws IOException {
        String generated = generate();
        if (Boolean.getBoolean("docs.update")) {
            Files.writeString(TABLE, generated, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(TABLE, StandardCharsets.UTF_8))
                .as("docs/reference/refusal-codes.md is stale; regenerate it with -Ddocs.update=true").isEqualTo(generated);
    }

    private static final Path TROUBLESHOOTING = Path.of("how-to", "troubleshooting.md");
    static final String BEGIN = "<!-- BEGIN GENERATED from io.kvcacheinjector.domain.ReasonCode by RefusalCodeTableTest"
            + " (regenerate: bin/mvn -o -pl docs -am test -Dtest=RefusalCodeTableTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Ddocs.update=true) -->\n";
    static final String END = "<!-- END GENERATED -->\n";

    /** The troubleshooting page's index: one entry per code, its kind and webhooks, and the fix. */
    static String troubleshootingIndex() {
        StringBuilder b = new StringBuilder();
        for (ReasonCode c : ReasonCode.values()) {
            String kind = switch (c.kind()) {
                case REFUSAL -> "refused";
                case SKIP -> "skipped (refused when fail-closed)";
                case WARNING -> "admitted with a warning";
            };
            String webhooks = c.webhooks().stream().map(w -> "`" + w.path() + "`")
                    .collect(Collectors.joining(", "));
            b.append("### `").append(c.id()).append("`\n\n");
            b.append("Pod ").append(kind).append(" by ").append(webhooks).append(". ").append(c.firesWhen())
                    .append("\n\n**Fix.** ").append(c.fix()).append("\n\n");
        }
        return b.toString();
    }

    @Test
    void theTroubleshootingPageHasAnEntryWithTheFixForEveryCode() throws IOException {
        String page = Files.readString(TROUBLESHOOTING, StandardCharsets.UTF_8);
        int begin = page.indexOf(BEGIN);
        int end = page.indexOf(END);
        assertThat(begin).as("docs/how-to/troubleshooting.md has the generated-index markers").isGreaterThanOrEqualTo(0);
        assertThat(end).isGreaterThan(begin);
        String expected = page.substring(0, begin) + BEGIN + troubleshootingIndex() + END
                + page.substring(end + END.length());
        if (Boolean.getBoolean("docs.update")) {
            Files.writeString(TROUBLESHOOTING, expected, StandardCharsets.UTF_8);
            page = expected;
        }
        assertThat(page).as("docs/how-to/troubleshooting.md is stale; regenerate it with -Ddocs.update=true")
                .isEqualTo(expected);
    }

    @Test
    void everyCodeHasAFixThatIsAnInstruction() {
        for (ReasonCode c : ReasonCode.values()) {
            assertThat(c.fix()).as(c.id()).isNotBlank().doesNotContain("\n").endsWith(".");
        }
    }

    @Test
    void codesFollowTheCatalogueRules() {
        for (ReasonCode c : ReasonCode.values()) {
            assertThat(c.id()).matches("[a-z][a-z0-9]*(-[a-z0-9]+)*").hasSizeLessThanOrEqualTo(32);
            assertThat(c.id().startsWith("warn-")).as(c.id()).isEqualTo(c.kind() == ReasonCode.Kind.WARNING);
        }
        assertThat(Arrays.stream(ReasonCode.values()).map(ReasonCode::id).distinct().count()).isEqualTo(ReasonCode.values().length);
    }

    @Test
    void theCodeSetIsTheSpecificationsCataloguePlusOurDocumentedAdditions() throws IOException {
        Path spec = Path.of("..", "..", "shared", "reference", "docs/reference/refusal-codes.md");
        Assumptions.assumeTrue(Files.exists(spec), "the specification is not beside this checkout: " + spec.toAbsolutePath());
        Set<String> catalogue = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^\\| `([a-z0-9-]+)` \\|").matcher(Files.readString(spec));
        while (m.find()) {
            catalogue.add(m.group(1));
        }
        Set<String> ours = Arrays.stream(ReasonCode.values()).map(ReasonCode::id).collect(Collectors.toCollection(TreeSet::new));
        Set<String> missing = new TreeSet<>(catalogue);
        missing.removeAll(ours);
        Set<String> extra = new TreeSet<>(ours);
        extra.removeAll(catalogue);
        assertThat(missing).as("catalogue codes the code lacks").isEmpty();
        assertThat(extra).as("codes not in the catalogue").isEqualTo(OURS);
    }
}
