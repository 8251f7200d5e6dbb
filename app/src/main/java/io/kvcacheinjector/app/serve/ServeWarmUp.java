package io.kvcacheinjector.app.serve;

import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.adapters.http.server.WarmUp;
import io.kvcacheinjector.adapters.k8s.file.FileClusterDirectory;
import io.kvcacheinjector.app.wiring.AdmissionWiring;
import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.spi.Engines;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The warm-up of {@code serve --warm-up-reviews N} ({@link WarmUp}): the example reviews embedded in the jar (a vLLM,
 * an SGLang, a vLLM-Ascend and a five-container Pod, one refused for {@code sh -c}, and a CacheBlend Pod unless the
 * CacheBlend contract is off), answered over the example cluster embedded beside them (the Binding
 * {@code team-a/chat}, the Ascend pool {@code npu}, the engine {@code team-a/cacheblend}), with the engines
 * {@code serve} loaded, counted in metrics of its own and logged nowhere. Nothing of it reaches the cluster or the
 * served metrics.
 */
final class ServeWarmUp {
    /** Where the embedded cluster and reviews live (the {@code bench} module reads the same ones). */
    static final String RESOURCES = "/io/kvcacheinjector/app/serve/warmup/";
    static final List<String> CLUSTER_FILES = List.of("kvcache.yaml", "cacheblend.yaml");
    /** Connections that send at once: as the API server, more than one, on a replica that has one CPU. */
    static final int CONNECTIONS = 2;

    private ServeWarmUp() {
    }

    /** The warm-up of {@code reviews} reviews, with {@code engines}. */
    static WarmUp of(int reviews, Engines engines, boolean cacheBlend, String namespace) {
        List<WarmUp.Request> requests = new ArrayList<>();
        for (String name : List.of("vllm", "sglang", "vllm-ascend", "wide", "refused")) {
            requests.add(new WarmUp.Request(Webhook.KVCACHE_MUTATE, read("reviews/" + name + ".json")));
        }
        if (cacheBlend) {
            requests.add(new WarmUp.Request(Webhook.CACHEBLEND_MUTATE, read("reviews/cacheblend.json")));
        }
        return new WarmUp(handler(engines, namespace), requests, reviews, CONNECTIONS);
    }

    /** The handler over the embedded cluster (read from a temporary copy, deleted once read). */
    static AdmissionHandler handler(Engines engines, String namespace) {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("kvcache-injector-warm-up");
            for (String file : CLUSTER_FILES) {
                Files.write(dir.resolve(file), read("cluster/" + file));
            }
            FileClusterDirectory cluster = FileClusterDirectory.open(dir, "gpustack-system");
            return AdmissionWiring.of(cluster, cluster, engines, CacheBlendSettings.of("", false, namespace))
                    .quietHandler();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the warm-up's example cluster to a temporary directory ("
                    + e.getMessage() + "); give the JVM a writable java.io.tmpdir or drop --warm-up-reviews", e);
        } finally {
            if (dir != null) {
                for (String file : CLUSTER_FILES) {
                    dir.resolve(file).toFile().delete();
                }
                dir.toFile().delete();
            }
        }
    }

    private static byte[] read(String name) {
        try (InputStream in = ServeWarmUp.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("the jar has no " + RESOURCES + name + "; rebuild it");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCES + name + " from the jar", e);
        }
    }
}
