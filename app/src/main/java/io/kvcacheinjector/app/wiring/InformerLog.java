package io.kvcacheinjector.app.wiring;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.adapters.k8s.informer.InformerEvents;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The informers' failures as JSON log events ({@code informer-failing}, {@code informer-recovered}: one per change
 * of state, see docs/reference/metrics-and-logs.md), and fabric8's own retry warning silenced for a resource the API
 * server does not serve: it carries a ~45-line stack trace and repeats at every retry (up to every 32 s) for as long
 * as a CRD is missing, while {@code informer-failing} already names the CRD and the fix.
 */
final class InformerLog implements InformerEvents {
    /** fabric8's informer reflector, which logs "{} failed for {}, will retry" with the exception (SLF4J to JUL). */
    static final String REFLECTOR_LOGGER = "io.fabric8.kubernetes.client.informers.impl.cache.Reflector";
    /** Held so that the filter stays on the logger: JUL keeps loggers only weakly. */
    private static final Logger REFLECTOR = Logger.getLogger(REFLECTOR_LOGGER);

    private final JsonLog log;

    InformerLog(JsonLog log) {
        this.log = log;
    }

    /** Drops fabric8's retry warnings whose exception is an HTTP 404; other records pass unchanged. Idempotent. */
    static void quietRetriesOfUnservedResources() {
        Filter previous = REFLECTOR.getFilter();
        if (previous instanceof NotFoundRetries) {
            return;
        }
        REFLECTOR.setFilter(new NotFoundRetries(previous));
    }

    @Override
    public void failing(String kind, String scope, String crd, String reason, String fix) {
        log.warn("informer-failing", "kind", kind, "scope", scope, "crd", crd.isEmpty() ? null : crd,
                "reason", reason, "fix", fix);
    }

    @Override
    public void recovered(String kind, String scope) {
        log.info("informer-recovered", "kind", kind, "scope", scope);
    }

    private record NotFoundRetries(Filter previous) implements Filter {
        @Override
        public boolean isLoggable(java.util.logging.LogRecord record) {
            if (record.getLevel().intValue() <= Level.WARNING.intValue() && notFound(record.getThrown())) {
                return false;
            }
            return previous == null || previous.isLoggable(record);
        }

        private static boolean notFound(Throwable t) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                if (c instanceof KubernetesClientException k && k.getCode() == 404) {
                    return true;
                }
            }
            return false;
        }
    }
}
