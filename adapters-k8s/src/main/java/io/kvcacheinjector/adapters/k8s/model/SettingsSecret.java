package io.kvcacheinjector.adapters.k8s.model;

import io.kvcacheinjector.domain.cluster.ClusterObjects;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/**
 * The Secret {@code gpustack-settings} (D9): reads the dtype Setting through {@link ClusterObjects#dtypeOwned}
 * and logs a value that is neither on nor off, which falls back to the default (on).
 */
public final class SettingsSecret {
    private static final System.Logger LOG = System.getLogger(SettingsSecret.class.getName());

    private SettingsSecret() {
    }

    /** The Setting from a Secret object as a JSON tree; {@code where} names it in the log ({@code ns/name}). */
    public static boolean dtypeOwned(Map<String, Object> secret, String where) {
        rawSetting(secret).filter(v -> ClusterObjects.parseSetting(v).isEmpty()).ifPresent(v -> LOG.log(
                System.Logger.Level.WARNING, "Secret {0} key {1} has the value ''{2}'', which is neither on "
                        + "(1, t, T, true, True, TRUE) nor off (0, f, F, false, False, FALSE); using the default, on",
                where, ClusterObjects.DTYPE_SETTING, v));
        return ClusterObjects.dtypeOwned(secret);
    }

    /** The Setting's raw text from {@code stringData} or base64 {@code data}, when present. */
    static Optional<String> rawSetting(Map<String, Object> secret) {
        if (secret.get("stringData") instanceof Map<?, ?> sd && sd.get(ClusterObjects.DTYPE_SETTING) instanceof String s) {
            return Optional.of(s);
        }
        if (secret.get("data") instanceof Map<?, ?> d && d.get(ClusterObjects.DTYPE_SETTING) instanceof String s) {
            try {
                return Optional.of(new String(Base64.getMimeDecoder().decode(s), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
