package io.kvcacheinjector.training;

import io.kvcacheinjector.adapters.http.server.TlsProfile;

/**
 * The AOT cache's training run, {@code java -XX:AOTCacheOutput=... -cp kvcache-injector.jar:kvcache-injector-bench.jar:
 * kvcache-injector-aot-training.jar io.kvcacheinjector.training.AotTrainingMain [--engines-dir DIR]} (the image's
 * training stage in deploy/Dockerfile, deploy/aot-cache.sh). The shipped jar comes first on that class path, so a JVM
 * started with {@code -jar kvcache-injector.jar} (a prefix of it) uses the cache; the classes of the two tool jars
 * are in the cache but never loaded by it.
 */
public final class AotTrainingMain {
    private AotTrainingMain() {
    }

    public static void main(String[] args) {
        // before any TLS class is used, as the shipped Main does, so the cache holds serve's TLS set-up
        TlsProfile.rejectClientRenegotiation();
        System.exit(AotTrainingCommand.run(args, System.out, System.err));
    }
}
