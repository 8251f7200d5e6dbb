package io.kvcacheinjector.domain.kvcache;

import io.kvcacheinjector.domain.json.Json;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code kvcache.gpustack.ai/injected} record (docs/reference/kvcache-contract.md): compact JSON, keys in fixed order. */
public record InjectionRecord(String binding, String engine, Vehicle vehicle, String domain, boolean tenantInjected,
                              String launchProgram, boolean launchArgsForwarded) {
    public String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("binding", binding);
        m.put("engine", engine);
        m.put("vehicle", vehicle.id());
        m.put("domain", domain);
        m.put("tenantInjected", tenantInjected);
        m.put("launchProgram", launchProgram);
        m.put("launchArgsForwarded", launchArgsForwarded);
        return Json.write(m);
    }
}
