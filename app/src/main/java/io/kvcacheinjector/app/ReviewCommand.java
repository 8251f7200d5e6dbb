package io.kvcacheinjector.app;

import io.kvcacheinjector.adapters.http.AdmissionAnswer;
import io.kvcacheinjector.adapters.http.AdmissionHandler;
import io.kvcacheinjector.app.engines.EngineLoadException;
import io.kvcacheinjector.domain.Webhook;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * {@code review --cluster DIR --webhook kvcache/mutate|kvcache/validate|cacheblend/mutate}: one AdmissionReview v1 on
 * stdin, the response AdmissionReview on stdout, through the very handler the server uses. Malformed input: exit 1
 * with a one-line reason on stderr.
 */
final class ReviewCommand {
    private ReviewCommand() {
    }

    static int run(String[] args) throws IOException {
        return run(args, System.in, System.out, System.err);
    }

    static int run(String[] args, InputStream in, PrintStream out, PrintStream err) throws IOException {
        CliArgs cli;
        Webhook webhook;
        try {
            Set<String> valued = new HashSet<>(OfflineCluster.VALUED);
            valued.add("--webhook");
            cli = CliArgs.parse(args, valued, OfflineCluster.SWITCHES);
            String w = cli.required("--webhook");
            webhook = Webhook.byPath(w).orElseThrow(() -> new IllegalArgumentException(
                    "--webhook must be kvcache/mutate, kvcache/validate or cacheblend/mutate, not \"" + w + "\""));
            cli.required("--cluster");
        } catch (IllegalArgumentException e) {
            err.println("review: " + e.getMessage());
            return 1;
        }
        AdmissionHandler handler;
        try {
            handler = OfflineCluster.wiring(cli).quietHandler();
        } catch (EngineLoadException e) {
            err.println("review: " + oneLine(e.getMessage()));
            return 1;
        } catch (RuntimeException e) {
            err.println("review: cannot load the cluster: " + oneLine(e.getMessage()));
            return 1;
        }
        byte[] body = in.readAllBytes();
        AdmissionAnswer answer = handler.handle(webhook, body);
        if (answer.status() != 200) {
            err.println("review: malformed AdmissionReview (HTTP " + answer.status() + "): "
                    + oneLine(new String(answer.body(), StandardCharsets.UTF_8)));
            return 1;
        }
        out.write(answer.body());
        out.println();
        out.flush();
        return 0;
    }

    static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s*\\R\\s*", " ").strip();
    }
}
