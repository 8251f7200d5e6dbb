package io.kvcacheinjector.app.engines;

import io.kvcacheinjector.adapters.http.telemetry.MetricSource;
import io.kvcacheinjector.adapters.http.telemetry.PrometheusText;
import java.util.List;

/**
 * {@code kvcache_injector_engine_info}: one series per loaded engine, value 1, labelled with its id, version, folder,
 * the annotation values that select it and the SPI version it was built against (docs/reference/metrics-and-logs.md).
 */
public final class EngineInfoMetrics implements MetricSource {
    public static final String NAME = "kvcache_injector_engine_info";

    private final List<LoadedEngine> engines;

    public EngineInfoMetrics(List<LoadedEngine> engines) {
        this.engines = List.copyOf(engines);
    }

    @Override
    public void appendTo(StringBuilder out) {
        PrometheusText.header(out, NAME, "gauge",
                "An engine plugin this webhook loaded from its engines folder (always 1).");
        for (LoadedEngine l : engines) {
            PrometheusText.sample(out, NAME, 1, "id", l.engine().id(), "name", l.engine().displayName(),
                    "version", l.engine().version(), "folder", l.folder().toString(),
                    "accepts", l.engine().selector().describe(), "spi", EngineFolders.spiVersionOf(l));
        }
    }
}
