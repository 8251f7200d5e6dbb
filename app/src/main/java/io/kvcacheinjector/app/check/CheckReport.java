package io.kvcacheinjector.app.check;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The output of {@code check}: text for people, JSON for scripts (docs/reference/check.md). */
public final class CheckReport {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private CheckReport() {
    }

    /** 0 when no finding is an error, 1 otherwise. */
    public static int exitStatus(List<Finding> findings) {
        return findings.stream().anyMatch(f -> f.severity() == Severity.ERROR) ? 1 : 0;
    }

    /**
     * One paragraph per finding: {@code <severity> <code> <object>}, then what is wrong and {@code fix: …}, indented;
     * a summary line last.
     */
    public static String text(List<Finding> findings, String scope) {
        StringBuilder b = new StringBuilder();
        for (Finding f : findings) {
            b.append(f.severity().label()).append(' ').append(f.code().id()).append(' ').append(f.object()).append('\n');
            b.append("  ").append(f.message()).append('\n');
            b.append("  fix: ").append(f.fix()).append('\n');
        }
        long errors = count(findings, Severity.ERROR);
        long warnings = count(findings, Severity.WARNING);
        long infos = count(findings, Severity.INFO);
        if (findings.isEmpty()) {
            b.append("no problems found in ").append(scope).append('\n');
        } else {
            b.append(errors).append(errors == 1 ? " error, " : " errors, ").append(warnings)
                    .append(warnings == 1 ? " warning, " : " warnings, ").append(infos).append(" info in ")
                    .append(scope).append('\n');
        }
        return b.toString();
    }

    /** {@code {"scope": …, "findings": [{code, severity, object, message, fix}], "errors": n, …}}. */
    public static String json(List<Finding> findings, String scope) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scope", scope);
        out.put("findings", findings.stream().map(f -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("code", f.code().id());
            m.put("severity", f.severity().label());
            m.put("object", f.object());
            m.put("message", f.message());
            m.put("fix", f.fix());
            return m;
        }).toList());
        out.put("errors", count(findings, Severity.ERROR));
        out.put("warnings", count(findings, Severity.WARNING));
        out.put("infos", count(findings, Severity.INFO));
        try {
            return JSON.writeValueAsString(out) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long count(List<Finding> findings, Severity s) {
        return findings.stream().filter(f -> f.severity() == s).count();
    }
}
