package io.kvcacheinjector.adapters.k8s.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A part of a custom resource that keeps the fields it does not type: they are read into
 * {@link #getAdditionalProperties()} and written back unchanged, so fields that drift between upstream versions
 * (the Binding's quota, for one) survive a round trip.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public abstract class OpenObject {
    private final Map<String, Object> additionalProperties = new LinkedHashMap<>();

    @JsonAnyGetter
    public Map<String, Object> getAdditionalProperties() {
        return additionalProperties;
    }

    @JsonAnySetter
    public void setAdditionalProperty(String name, Object value) {
        additionalProperties.put(name, value);
    }
}
