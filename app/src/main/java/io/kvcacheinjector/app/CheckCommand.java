package io.kvcacheinjector.app;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kvcacheinjector.app.check.CheckReport;
import io.kvcacheinjector.app.check.ClusterCheck;
import io.kvcacheinjector.app.check.Finding;
import io.kvcacheinjector.app.engines.EngineFolders;
import io.kvcacheinjector.app.engines.EngineLoadException;
import java.io.File;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code check [--kubeconfig FILE] [--context NAME] [--namespace NS | --all-namespaces] [-o text|json]}: reads a live
 * cluster with the user's own credentials and reports what would stop opted-in Pods from being injected
 * (docs/reference/check.md). Exit 0 when no finding is an error, 1 when one is, 2 when the cluster cannot be read or
 * the command line is wrong (one line saying why).
 */
final class CheckCommand {
    static final int CANNOT_CHECK = 2;
    /** Kept referenced: JUL holds loggers weakly, and fabric8's "unstable version v1alpha1" notes are noise here. */
    private static final java.util.logging.Logger FABRIC8 = java.util.logging.Logger.getLogger("io.fabric8");

    private CheckCommand() {
    }

    static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    /**
     * Why the loaded configuration cannot be the one meant: a {@code --context} the kubeconfig does not hold, or a
     * {@code --kubeconfig} without a current context (fabric8 would then silently try the in-cluster address).
     */
    private static Optional<String> unusableContext(Config config, CliArgs cli) {
        List<String> contexts = config.getContexts() == null ? List.of()
                : config.getContexts().stream().map(c -> c.getName()).toList();
        String where = cli.value("--kubeconfig").map(f -> "the kubeconfig " + f).orElse("the kubeconfig");
        Optional<String> wanted = cli.value("--context");
        if (wanted.isPresent() && !contexts.contains(wanted.get())) {
            return Optional.of("context \"" + wanted.get() + "\" is not in " + where + " (its contexts: "
                    + (contexts.isEmpty() ? "none" : String.join(", ", contexts)) + "); pass one of them with --context");
        }
        if (cli.value("--kubeconfig").isPresent() && config.getCurrentContext() == null) {
            return Optional.of(where + " names no current context" + (contexts.isEmpty() ? " and holds none"
                    : "; pass --context (one of: " + String.join(", ", contexts) + ")"));
        }
        return Optional.empty();
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        FABRIC8.setLevel(java.util.logging.Level.SEVERE);
        CliArgs cli;
        String output;
        try {
            cli = CliArgs.parse(args, Set.of("--kubeconfig", "--context", "--namespace", "-n", "-o", "--output",
                    EngineOptions.FLAG), Set.of("--all-namespaces", "-A"));
            output = cli.value("-o").or(() -> cli.value("--output")).orElse("text");
            if (!output.equals("text") && !output.equals("json")) {
                throw new IllegalArgumentException("-o must be text or json, not \"" + output + "\"");
            }
            if ((cli.has("--all-namespaces") || cli.has("-A"))
                    && (cli.value("--namespace").isPresent() || cli.value("-n").isPresent())) {
                throw new IllegalArgumentException("give --namespace or --all-namespaces, not both");
            }
        } catch (IllegalArgumentException e) {
            err.println("check: " + e.getMessage());
            return CANNOT_CHECK;
        }
        EngineFolders.Loaded engines;
        try {
            engines = EngineFolders.load(EngineOptions.folders(cli));
        } catch (EngineLoadException | IllegalArgumentException e) {
            err.println("check: " + ReviewCommand.oneLine(e.getMessage()));
            return CANNOT_CHECK;
        }
        Config config;
        try {
            Optional<String> context = cli.value("--context");
            config = cli.value("--kubeconfig").isPresent()
                    ? Config.fromKubeconfig(context.orElse(null), new File(cli.value("--kubeconfig").get()))
                    : Config.autoConfigure(context.orElse(null));
        } catch (RuntimeException e) {
            err.println("check: cannot load the kubeconfig: " + ReviewCommand.oneLine(String.valueOf(e.getMessage()))
                    + "; pass --kubeconfig FILE and --context NAME, or set KUBECONFIG");
            return CANNOT_CHECK;
        }
        Optional<String> unusable = unusableContext(config, cli);
        if (unusable.isPresent()) {
            err.println("check: " + unusable.get());
            return CANNOT_CHECK;
        }
        config.setRequestRetryBackoffLimit(0);
        config.setConnectionTimeout(5_000);
        config.setRequestTimeout(15_000);
        boolean all = cli.has("--all-namespaces") || cli.has("-A");
        Optional<String> namespace = all ? Optional.empty() : Optional.of(cli.value("--namespace")
                .or(() -> cli.value("-n")).orElse(config.getNamespace() == null ? "default" : config.getNamespace()));
        String scope = namespace.map(n -> "namespace " + n).orElse("all namespaces");
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            List<Finding> findings = new ClusterCheck(client, namespace, engines.engines()).run();
            out.print(output.equals("json") ? CheckReport.json(findings, scope) : CheckReport.text(findings, scope));
            out.flush();
            return CheckReport.exitStatus(findings);
        } catch (ClusterCheck.ClusterUnreadable e) {
            err.println("check: " + e.getMessage());
            return CANNOT_CHECK;
        } catch (RuntimeException e) {
            err.println("check: cannot read the cluster at " + config.getMasterUrl() + ": "
                    + ReviewCommand.oneLine(String.valueOf(e.getMessage())));
            return CANNOT_CHECK;
        }
    }
}
