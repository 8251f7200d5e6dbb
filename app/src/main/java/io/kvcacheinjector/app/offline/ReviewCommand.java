package io.kvcacheinjector.app.offline;

import io.kvcacheinjector.app.cli.Cli;

import io.kvcacheinjector.adapters.http.AdmissionAnswer;
import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.domain.Webhook;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code review [--cluster DIR] --webhook kvcache/mutate|kvcache/validate|cacheblend/mutate}: one AdmissionReview v1
 * on stdin, the response AdmissionReview on stdout, through the very handler the server uses, over the file-backed
 * cluster or (without {@code --cluster}) the live one. The response is the answer, whether it allows or not: exit 0.
 * Malformed input or a cluster that cannot be read: exit 2 with a one-line reason on stderr.
 */
@Command(name = "review", sortOptions = false,
        description = {"Answers one admission.k8s.io/v1 AdmissionReview read from stdin with the response"
                + " AdmissionReview on stdout, through the very code path serve uses (auditAnnotations included).",
                "Without --cluster, the live cluster of the kubeconfig is read (read-only)."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:the response AdmissionReview is on stdout, whether it allows the Pod or not",
                "2:bad usage, a malformed AdmissionReview, or engines or a cluster that cannot be read; one line on"
                        + " stderr"})
public final class ReviewCommand implements Callable<Integer> {
    @Option(names = "--webhook", required = true, paramLabel = "PATH", description = "The webhook to ask:"
            + " kvcache/mutate, kvcache/validate or cacheblend/mutate.")
    String webhook;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NS", hidden = true, description = "Accepted and unused: the"
            + " AdmissionReview names its namespace.")
    String namespace;

    @Mixin
    OfflineCluster cluster = new OfflineCluster();

    @Mixin
    Cli.Help help = new Cli.Help();

    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;

    public ReviewCommand(InputStream in, PrintStream out, PrintStream err, Map<String, String> env) {
        this.in = in;
        this.out = out;
        this.err = err;
        this.env = env;
    }

    static int run(String[] args) {
        return run(args, System.in, System.out, System.err);
    }

    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        return Cli.execute(new ReviewCommand(in, out, err, System.getenv()), args, out, err);
    }

    @Override
    public Integer call() throws IOException {
        Webhook target = Webhook.byPath(webhook).orElse(null);
        if (target == null) {
            err.println("review: --webhook must be kvcache/mutate, kvcache/validate or cacheblend/mutate, not \""
                    + webhook + "\"");
            return Cli.USAGE;
        }
        OfflineCluster.Opened opened = InjectCommand.open(cluster, env, err, "review");
        if (opened == null) {
            return Cli.USAGE;
        }
        try {
            AdmissionHandler handler = opened.wiring().quietHandler();
            byte[] body = in.readAllBytes();
            AdmissionAnswer answer = handler.handle(target, body);
            if (answer.status() != 200) {
                err.println("review: malformed AdmissionReview (HTTP " + answer.status() + "): "
                        + oneLine(new String(answer.body(), StandardCharsets.UTF_8)));
                return Cli.USAGE;
            }
            out.write(answer.body());
            out.println();
            out.flush();
            return Cli.OK;
        } finally {
            opened.close();
        }
    }

    static String oneLine(String s) {
        return Cli.oneLine(s);
    }
}
