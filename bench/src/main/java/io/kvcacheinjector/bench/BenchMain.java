package io.kvcacheinjector.bench;

import io.kvcacheinjector.adapters.http.server.TlsProfile;

/**
 * {@code kvcache-injector bench} from the source checkout: bin/kvcache-injector runs this class on the class path
 * {@code app/target/kvcache-injector.jar:bench/target/kvcache-injector-bench.jar} (the shipped jar does not hold
 * bench, issue 30). The arguments are bench's own, after its name.
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) {
        // before any TLS class is used, as the shipped Main does: the servers bench starts speak serve's profile
        TlsProfile.rejectClientRenegotiation();
        System.exit(BenchCommand.run(args, System.out, System.err));
    }
}
