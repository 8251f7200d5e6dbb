package io.kvcacheinjector.domain.cacheblend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvcacheinjector.domain.cluster.ConfigMapData;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConnectionTest {

    @Test
    void thePdRoleSelectsTheKeyAndAnythingElseIsRejectedAsWritten() {
        assertThat(ConnectionKey.select(null)).isEqualTo(new ConnectionKey.Selected("kv-transfer-config.json"));
        assertThat(ConnectionKey.select("prefiller"))
                .isEqualTo(new ConnectionKey.Selected("kv-transfer-config-prefiller.json"));
        assertThat(ConnectionKey.select("decoder")).isEqualTo(new ConnectionKey.Selected("kv-transfer-config-decoder.json"));
        assertThat(ConnectionKey.select("Decoder")).isEqualTo(new ConnectionKey.InvalidRole("Decoder"));
        assertThat(ConnectionKey.select("")).isEqualTo(new ConnectionKey.InvalidRole(""));
    }

    private static ConnectionConfig.Reading read(String value) {
        return ConnectionConfig.read(new ConfigMapData("ops", "cb-connection", Map.of("kv-transfer-config.json", value)),
                "kv-transfer-config.json");
    }

    private static String problem(String value) {
        return ((ConnectionConfig.Invalid) read(value)).problem();
    }

    @Test
    void theConfigMapStringIsPassedThroughVerbatimWithItsFormatting() {
        String text = "{\n  \"kv_connector\": \"CBKVConnector\",\n  \"kv_connector_extra_config\": {\n"
                + "    \"cb.recomp_ratio\": 1,\n    \"lmcache.mp.port\": \"5555\"\n  },\n  \"kv_role\": \"kv_both\"\n}";
        assertThat(read(text)).isEqualTo(new ConnectionConfig.Valid(new ConnectionConfig(text, "CBKVConnector")));
    }

    @Test
    void aKeyThatCannotNameAConnectorIsInvalidWithAReason() {
        assertThat(problem("")).isEqualTo("is empty");
        assertThat(problem("  \n")).isEqualTo("is empty");
        assertThat(problem("{\"kv_connector\": \"CB\",")).isEqualTo("is not valid JSON");
        assertThat(problem("[\"CBKVConnector\"]")).isEqualTo("is JSON but not an object");
        assertThat(problem("{\"kv_role\": \"kv_both\"}")).isEqualTo("has no kv_connector");
        assertThat(problem("{\"kv_connector\": \"\"}")).contains("not a non-empty string");
        assertThat(problem("{\"kv_connector\": 7}")).contains("not a non-empty string");
        assertThat(problem("{\"kv_connector\": null}")).isEqualTo("has no kv_connector");
    }

    @Test
    void anAbsentKeyNamesTheKeysTheConfigMapHas() {
        ConnectionConfig.Reading r = ConnectionConfig.read(new ConfigMapData("ops", "cb-connection",
                Map.of("kv-transfer-config.json", "{}")), "kv-transfer-config-decoder.json");
        assertThat(((ConnectionConfig.Invalid) r).problem())
                .isEqualTo("is absent (the ConfigMap has \"kv-transfer-config.json\")");
        r = ConnectionConfig.read(new ConfigMapData("ops", "cb-connection", Map.of()), "kv-transfer-config.json");
        assertThat(((ConnectionConfig.Invalid) r).problem()).isEqualTo("is absent (the ConfigMap has no data)");
    }
}
