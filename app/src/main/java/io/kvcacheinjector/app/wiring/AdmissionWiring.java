package io.kvcacheinjector.app.wiring;

import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.adapters.http.telemetry.AdmissionMetrics;
import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.ports.service.CacheBlendInjection;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.service.KvCacheFreeze;
import io.kvcacheinjector.ports.service.KvCacheInjection;
import io.kvcacheinjector.ports.out.ClusterDirectoryPort;
import io.kvcacheinjector.ports.out.SettingsPort;
import io.kvcacheinjector.ports.spi.Engines;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The one place the three use cases and their failure policy are built, for every command ({@code serve} through
 * {@code AppModule}, {@code inject}, {@code review} and {@code bench} through {@code OfflineCluster}) and for the
 * tests: given a cluster view, the settings, the loaded engines and the CacheBlend options, the same use cases and
 * the same answer to "what does a failing use case do". Plain constructors; Guice only decides, for {@code serve},
 * which cluster view and which engines these get (docs/explanation/decisions.md, "One composition root").
 *
 * @param useCases the kvcache mutate, freeze and CacheBlend mutate use cases
 * @param failOpen the webhooks whose failing use case admits, as their {@code failurePolicy: Ignore} registration
 *                 would: the freeze always, CacheBlend unless fail-closed; every other webhook denies
 */
public record AdmissionWiring(AdmissionUseCases useCases, Set<Webhook> failOpen) {
    public AdmissionWiring {
        Objects.requireNonNull(useCases, "useCases");
        failOpen = Set.copyOf(failOpen);
    }

    /** Wires the use cases over {@code directory}, {@code settings} and {@code engines}. */
    public static AdmissionWiring of(ClusterDirectoryPort directory, SettingsPort settings, Engines engines,
                                     CacheBlendSettings cacheBlend) {
        AdmissionUseCases useCases = new AdmissionUseCases(new KvCacheInjection(directory, settings, engines),
                new KvCacheFreeze(), new CacheBlendInjection(directory, engines, cacheBlend));
        Set<Webhook> failOpen = EnumSet.of(Webhook.KVCACHE_VALIDATE);
        if (!cacheBlend.failClosed()) {
            failOpen.add(Webhook.CACHEBLEND_MUTATE);
        }
        return new AdmissionWiring(useCases, failOpen);
    }

    /** The handler of {@code serve}: counted in {@code metrics}, one line per review in {@code log}. */
    public AdmissionHandler handler(AdmissionMetrics metrics, JsonLog log) {
        return new AdmissionHandler(useCases, failOpen, metrics, log);
    }

    /** The handler of {@code review}: the same answers as {@code serve}'s, with no log output. */
    public AdmissionHandler quietHandler() {
        return handler(new AdmissionMetrics(), JsonLog.discard());
    }
}
