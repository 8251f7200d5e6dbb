package io.kvcacheinjector.adapters.http.telemetry;

import java.math.BigDecimal;

/** Helpers for the Prometheus text exposition format 0.0.4. */
public final class PrometheusText {
    /** The {@code Content-Type} of the exposition. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private PrometheusText() {
    }

    /** Appends the {@code # HELP} and {@code # TYPE} lines of one family. */
    public static void header(StringBuilder out, String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help.replace("\\", "\\\\").replace("\n", "\\n"))
                .append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    /** Appends one sample line; {@code labels} alternate name and value. */
    public static void sample(StringBuilder out, String name, double value, String... labels) {
        out.append(name);
        if (labels.length > 0) {
            out.append('{');
            for (int i = 0; i < labels.length; i += 2) {
                if (i > 0) {
                    out.append(',');
                }
                out.append(labels[i]).append("=\"").append(escape(labels[i + 1])).append('"');
            }
            out.append('}');
        }
        out.append(' ').append(number(value)).append('\n');
    }

    /** Escapes a label value: backslash, double quote and line feed. */
    public static String escape(String labelValue) {
        StringBuilder b = new StringBuilder(labelValue.length());
        for (int i = 0; i < labelValue.length(); i++) {
            char c = labelValue.charAt(i);
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '"' -> b.append("\\\"");
                case '\n' -> b.append("\\n");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** A sample value: integers without a fraction, {@code +Inf}, {@code -Inf}, {@code NaN}. */
    public static String number(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "+Inf" : "-Inf";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }
}
