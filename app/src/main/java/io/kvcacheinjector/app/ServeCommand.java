package io.kvcacheinjector.app;

import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import java.io.PrintStream;
import java.time.Clock;
import java.util.Map;

/**
 * {@code serve [--cluster DIR] [--port 8443] [--tls-cert PEM --tls-key PEM] [--tls-ca-out FILE] ...}: the admission
 * webhook over HTTPS until SIGTERM; then the shutdown delay (still answering, not ready; a second signal ends it),
 * a graceful stop and exit 0. JSON log lines go to stdout; a flag error or a part that cannot start is one line on
 * stderr and exit 1. Flags: {@code docs/reference/server-flags.md}.
 */
final class ServeCommand {
    private ServeCommand() {
    }

    static int run(String[] args) throws InterruptedException {
        return run(args, System.getenv(), System.out, System.err, ServeSignals.install());
    }

    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err, ServeSignals signals)
            throws InterruptedException {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            usage(out);
            return 0;
        }
        ServeOptions options;
        try {
            options = ServeOptions.parse(args, env);
        } catch (IllegalArgumentException e) {
            err.println("serve: " + e.getMessage());
            err.println("serve: see `serve --help` or docs/reference/server-flags.md");
            return 1;
        }
        JsonLog log = JsonLog.to(out);
        ServeRuntime runtime;
        try {
            runtime = ServeRuntime.start(options, log, Clock.systemUTC());
        } catch (RuntimeException e) {
            String reason = ReviewCommand.oneLine(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            log.error("serve-failed", "reason", reason);
            err.println("serve: " + reason);
            return 1;
        }
        String why = signals.await();
        log.info("serve-stopping", "signal", why);
        runtime.stop(signals::awaitAnother);
        log.info("serve-stopped", "exitStatus", 0);
        return 0;
    }

    static void usage(PrintStream out) {
        out.println("""
                usage: kvcache-injector serve [options]
                  --cluster DIR                      serve from a file-backed cluster (reloaded on change);
                                                     without it, from the Kubernetes API (kubeconfig or in-cluster)
                  --host ADDR                        bind address (default 0.0.0.0)
                  --port N                           HTTPS port (default 8443; 0 picks a free port)
                  --tls-cert PEM --tls-key PEM       serving certificate and key, reloaded when the files change;
                                                     without them, a self-signed certificate for localhost/127.0.0.1
                  --tls-ca-out FILE                  write the generated certificate's CA (PEM) for clients
                  --tls-client-ca PEM                require client certificates from these CAs on the admission paths
                  --max-body-bytes N                 largest AdmissionReview accepted (default 3Mi); larger: 413
                  --settings-namespace NS            namespace of the Secret gpustack-settings (default gpustack-system)
                  --cacheblend-allowed-namespaces L  comma-separated namespaces whose CacheBlendEngines any Pod may use
                  --cacheblend-fail-closed           CacheBlend skips become refusals
                  --disable-cacheblend               serve the kvcache contract only: no CacheBlendEngine or ConfigMap
                                                     is read, so the CacheBlend CRD need not be installed
                  --namespace NS                     the webhook's own namespace (default $POD_NAMESPACE or kvcache-injector)
                  --reconcile-cacheblend             also run the CacheBlendEngine controller (leader-elected on a Lease)
                  --leader-election-lease NAME       its Lease (default kvcache-injector-cacheblend)
                  --leader-election-namespace NS     the Lease's namespace (default --namespace)
                  --shutdown-delay D                 after SIGTERM, keep answering (not ready) this long before
                                                     closing the port (default 5s; 0: close at once; a second
                                                     signal ends it)
                  --shutdown-grace D                 time reviews in flight get after that (default 10s)
                  --engines-dir DIR[,DIR...]         the engines folders, one subfolder per engine (default: engines/
                                                     beside the jar)""");
    }
}
