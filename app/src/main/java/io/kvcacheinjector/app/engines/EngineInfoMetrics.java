package io.kvcacheinjector.app.engines;

import io.kvcacheinjector.adapters.http.telemetry.MetricSource;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;

/**
 * {@code kvcache_injector_engine_info}: one series per loaded engine, value 1, labelled with its id, version, folder,
 * the annotation values that select it and the SPI version it was built against (docs/reference/metrics-and-logs.md).
 * A Prometheus client Info metric: a gauge in the text format 0.0.4, an {@code info} family in OpenMetrics.
 */
public final class EngineInfoMetrics implements MetricSource {
    public static final String NAME = "kvcache_injector_engine_info";

    private final List<LoadedEngine> engines;

    public EngineInfoMetrics(List<LoadedEngine> engines) {
        this.engines = List.copyOf(engines);
    }

    @Override
    public void registerIn(PrometheusRegistry registry) {
        Info info = Info.builder()
                .name(NAME)
                .help("An engine plugin this webhook loaded from its engines folder (always 1).")
                .labelNames("id", "name", "version", "folder", "accepts", "spi")
                .register(registry);
        for (LoadedEngine l : engines) {
            info.addLabelValues(l.engine().id(), l.engine().displayName(), l.engine().version(),
                    l.folder().toString(), l.engine().selector().describe(), EngineFolders.spiVersionOf(l));
        }
    }
}
