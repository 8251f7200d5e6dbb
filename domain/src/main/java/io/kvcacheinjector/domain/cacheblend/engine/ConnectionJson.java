package io.kvcacheinjector.domain.cacheblend.engine;

import io.kvcacheinjector.domain.json.IndentedJson;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code --kv-transfer-config} JSON an engine's connection ConfigMap carries (docs/reference/cacheblend-engine.md
 * "Connection ConfigMap"): {@code CBKVConnector} from {@code lmcache_cacheblend.connector}, the lookup Service's
 * address, the server port as a string and the blend tunables; keys sorted, two-space indent.
 */
public final class ConnectionJson {
    public static final String CONNECTOR = "CBKVConnector";
    public static final String MODULE_PATH = "lmcache_cacheblend.connector";

    private ConnectionJson() {
    }

    /** The JSON for {@code kvRole} ({@code kv_both}, or {@code kv_producer}/{@code kv_consumer} for PD keys). */
    public static String render(EngineIdentity engine, EngineSpec spec, String kvRole) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("lmcache.mp.host", "tcp://" + engine.name() + "." + engine.namespace() + ".svc.cluster.local");
        extra.put("lmcache.mp.port", Integer.toString(spec.port()));
        extra.put("cb.check_layer", (long) spec.checkLayer());
        extra.put("cb.recomp_ratio", spec.recompRatio());
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("kv_connector", CONNECTOR);
        config.put("kv_connector_module_path", MODULE_PATH);
        config.put("kv_role", kvRole);
        config.put("kv_connector_extra_config", extra);
        return IndentedJson.write(config);
    }
}
