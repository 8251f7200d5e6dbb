package io.kvcacheinjector.adapters.http.telemetry;

import io.kvcacheinjector.domain.json.Json;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Structured log lines: one JSON object per line, starting with {@code ts} (UTC, milliseconds), {@code level} and
 * {@code event}, followed by the event's fields in the order given. Field values are plain JSON values (strings,
 * numbers, booleans, lists, maps); a {@code null} field is left out.
 */
public final class JsonLog {
    /** How serious a line is. */
    public enum Level {
        INFO("info"), WARN("warn"), ERROR("error");

        private final String json;

        Level(String json) {
            this.json = json;
        }

        public String json() {
            return json;
        }
    }

    private final Consumer<String> sink;
    private final Clock clock;

    /** Writes lines to {@code sink}, stamping them with {@code clock}. */
    public JsonLog(Consumer<String> sink, Clock clock) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Writes lines to {@code out}, one {@code println} each. */
    public static JsonLog to(PrintStream out) {
        return new JsonLog(line -> {
            synchronized (out) {
                out.println(line);
            }
        }, Clock.systemUTC());
    }

    /** Writes nothing (for the {@code review} command and tests that do not look at logs). */
    public static JsonLog discard() {
        return new JsonLog(line -> {
        }, Clock.systemUTC());
    }

    /** Writes one line. */
    public void log(Level level, String event, Map<String, ?> fields) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("ts", Instant.now(clock).truncatedTo(ChronoUnit.MILLIS).toString());
        line.put("level", level.json());
        line.put("event", event);
        fields.forEach((k, v) -> {
            if (v != null) {
                line.put(k, v);
            }
        });
        String text;
        try {
            text = Json.write(line);
        } catch (IllegalArgumentException e) {
            text = Json.write(Map.of("ts", line.get("ts"), "level", level.json(), "event", event,
                    "logError", "a field was not a JSON value"));
        }
        sink.accept(text);
    }

    /** Writes one line from alternating keys and values. */
    public void info(String event, Object... keysAndValues) {
        log(Level.INFO, event, pairs(keysAndValues));
    }

    /** Writes one warning line from alternating keys and values. */
    public void warn(String event, Object... keysAndValues) {
        log(Level.WARN, event, pairs(keysAndValues));
    }

    /** Writes one error line from alternating keys and values. */
    public void error(String event, Object... keysAndValues) {
        log(Level.ERROR, event, pairs(keysAndValues));
    }

    private static Map<String, Object> pairs(Object... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values must come in pairs");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put(String.valueOf(keysAndValues[i]), keysAndValues[i + 1]);
        }
        return m;
    }
}
