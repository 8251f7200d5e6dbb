package io.kvcacheinjector.app.check;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code check} prints and its exit status, from findings (the findings themselves: CheckE2E). */
class CheckReportTest {
    private static final Finding ERROR = new Finding(FindingCode.PULL_SECRET_MISSING, "Deployment team-b/chat",
            "Secret team-b/pull does not exist", "create it in team-b");
    private static final Finding WARNING = new Finding(FindingCode.IMAGES_MISMATCHED, "CacheBlendEngine ops/cb",
            "tags differ", "pin a matched pair");
    private static final Finding INFO = new Finding(FindingCode.WEBHOOK_URL, "MutatingWebhookConfiguration kvi",
            "called at a URL", "check its /readyz");

    @Test
    void anyErrorExitsOneAndWarningsOrInfoAloneExitZero() {
        assertThat(CheckReport.exitStatus(List.of())).isZero();
        assertThat(CheckReport.exitStatus(List.of(WARNING, INFO))).isZero();
        assertThat(CheckReport.exitStatus(List.of(INFO, ERROR))).isEqualTo(1);
    }

    @Test
    void textShowsSeverityCodeObjectWhatAndFixThenASummary() {
        assertThat(CheckReport.text(List.of(ERROR, WARNING), "namespace team-b")).isEqualTo("""
                error pull-secret-missing Deployment team-b/chat
                  Secret team-b/pull does not exist
                  fix: create it in team-b
                warning images-mismatched CacheBlendEngine ops/cb
                  tags differ
                  fix: pin a matched pair
                1 error, 1 warning, 0 info in namespace team-b
                """);
        assertThat(CheckReport.text(List.of(), "all namespaces")).isEqualTo("no problems found in all namespaces\n");
    }

    @Test
    void jsonCarriesEveryFieldAndTheCounts() throws IOException {
        JsonNode json = new ObjectMapper().readTree(CheckReport.json(List.of(ERROR, INFO), "namespace team-b"));
        assertThat(json.path("scope").asText()).isEqualTo("namespace team-b");
        assertThat(json.path("errors").asInt()).isEqualTo(1);
        assertThat(json.path("warnings").asInt()).isZero();
        assertThat(json.path("infos").asInt()).isEqualTo(1);
        JsonNode first = json.path("findings").get(0);
        assertThat(first.path("code").asText()).isEqualTo("pull-secret-missing");
        assertThat(first.path("severity").asText()).isEqualTo("error");
        assertThat(first.path("object").asText()).isEqualTo("Deployment team-b/chat");
        assertThat(first.path("message").asText()).isEqualTo("Secret team-b/pull does not exist");
        assertThat(first.path("fix").asText()).isEqualTo("create it in team-b");
    }
}
