package io.kvcacheinjector.app.serve;

import io.kvcacheinjector.app.cli.Cli;

import io.kvcacheinjector.adapters.http.telemetry.JsonLog;
import java.io.PrintStream;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code serve [--cluster DIR] [--port 8443] [--tls-cert PEM --tls-key PEM] [--tls-ca-out FILE] ...}: the admission
 * webhook over HTTPS until SIGTERM; then the shutdown delay (still answering, not ready; a second signal ends it),
 * a graceful stop and exit 0. JSON log lines go to stdout; a flag error is one line on stderr and exit 2, a part that
 * cannot start one line on stderr and exit 1. Flags: {@code docs/reference/server-flags.md}.
 */
@Command(name = "serve", sortOptions = false,
        description = {"Serves the admission webhooks over HTTPS until SIGTERM; then the shutdown delay (still"
                + " answering, not ready), a graceful stop and exit 0. JSON log lines go to stdout."
                + " Flags: docs/reference/server-flags.md."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:stopped by SIGTERM or SIGINT after a graceful stop",
                "1:could not start (a port in use, unusable TLS files, engines or a cluster that cannot be loaded);"
                        + " one line on stderr naming the cause and the fix",
                "2:bad usage; one line on stderr"})
public final class ServeCommand implements Callable<Integer> {
    @Mixin
    ServeOptions.Flags flags = new ServeOptions.Flags();

    @Mixin
    Cli.Help help = new Cli.Help();

    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;
    private final ServeSignals signals;

    public ServeCommand(Map<String, String> env, PrintStream out, PrintStream err, ServeSignals signals) {
        this.env = env;
        this.out = out;
        this.err = err;
        this.signals = signals;
    }

    static int run(String[] args) {
        return run(args, System.getenv(), System.out, System.err, null);
    }

    /** {@code signals} null: installed when the server starts (not for {@code --help} or a flag error). */
    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err, ServeSignals signals) {
        return Cli.execute(new ServeCommand(env, out, err, signals), args, out, err);
    }

    @Override
    public Integer call() throws InterruptedException {
        ServeOptions options;
        try {
            options = ServeOptions.of(flags, env);
        } catch (IllegalArgumentException e) {
            err.println("serve: " + e.getMessage());
            return Cli.USAGE;
        }
        ServeSignals installed = signals != null ? signals : ServeSignals.install();
        JsonLog log = JsonLog.to(out);
        ServeRuntime runtime;
        try {
            runtime = ServeRuntime.start(options, log, Clock.systemUTC());
        } catch (RuntimeException e) {
            String reason = Cli.oneLine(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            log.error("serve-failed", "reason", reason);
            err.println("serve: " + reason);
            return Cli.NO;
        }
        String why = installed.await();
        log.info("serve-stopping", "signal", why);
        runtime.stop(installed::awaitAnother);
        log.info("serve-stopped", "exitStatus", 0);
        return Cli.OK;
    }
}
