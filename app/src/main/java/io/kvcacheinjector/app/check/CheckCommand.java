package io.kvcacheinjector.app.check;

import io.kvcacheinjector.app.cli.Cli;
import io.kvcacheinjector.app.cli.Kubeconfig;
import io.kvcacheinjector.app.cli.KubeconfigOptions;
import io.kvcacheinjector.app.engines.EngineOptions;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kvcacheinjector.app.check.CheckReport;
import io.kvcacheinjector.app.check.ClusterCheck;
import io.kvcacheinjector.app.check.Finding;
import io.kvcacheinjector.app.engines.EngineFolders;
import io.kvcacheinjector.app.engines.EngineLoadException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code check [--kubeconfig FILE] [--context NAME] [--namespace NS | --all-namespaces] [-o text|json]}: reads a live
 * cluster with the user's own credentials and reports what would stop opted-in Pods from being injected
 * (docs/reference/check.md). Exit 0 when no finding is an error, 1 when one is, 2 when the cluster cannot be read or
 * the command line is wrong (one line saying why).
 */
@Command(name = "check", sortOptions = false,
        description = {"Reads a live cluster with your own credentials, changes nothing, and reports every reason an"
                + " opted-in Pod would not be injected (docs/reference/check.md)."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:no finding is an error (warnings may be printed)",
                "1:at least one finding is an error",
                "2:bad usage, or the engines or the cluster cannot be read; one line on stderr"})
public final class CheckCommand implements Callable<Integer> {
    static final int CANNOT_CHECK = Cli.USAGE;

    @Mixin
    KubeconfigOptions kube = new KubeconfigOptions();

    @Option(names = {"-n", "--namespace"}, paramLabel = "NS", description = "The namespace to check (default: the"
            + " context's namespace, else default).")
    String namespace;

    @Option(names = {"-A", "--all-namespaces"}, arity = "0", description = "Check every namespace.")
    boolean allNamespaces;

    @Option(names = {"-o", "--output"}, paramLabel = "text|json", description = "The report's format (default text).")
    String output = "text";

    @Mixin
    EngineOptions engines = new EngineOptions();

    @Mixin
    Cli.Help help = new Cli.Help();

    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;

    public CheckCommand(PrintStream out, PrintStream err, Map<String, String> env) {
        this.out = out;
        this.err = err;
        this.env = env;
    }

    static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        return Cli.execute(new CheckCommand(out, err, System.getenv()), args, out, err);
    }

    @Override
    public Integer call() {
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        if (!output.equals("text") && !output.equals("json")) {
            err.println("check: -o must be text or json, not \"" + output + "\"");
            return CANNOT_CHECK;
        }
        if (allNamespaces && namespace != null) {
            err.println("check: give --namespace or --all-namespaces, not both");
            return CANNOT_CHECK;
        }
        EngineFolders.Loaded loaded;
        try {
            loaded = EngineFolders.load(engines.folders());
        } catch (EngineLoadException | IllegalArgumentException e) {
            err.println("check: " + Cli.oneLine(e.getMessage()));
            return CANNOT_CHECK;
        }
        Config config;
        try {
            config = Kubeconfig.config(kube, env);
        } catch (KubeconfigOptions.Unreadable e) {
            err.println("check: " + e.getMessage());
            return CANNOT_CHECK;
        }
        Optional<String> scope = allNamespaces ? Optional.empty() : Optional.of(namespace != null ? namespace
                : Kubeconfig.namespace(config).orElse("default"));
        String where = scope.map(n -> "namespace " + n).orElse("all namespaces");
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            List<Finding> findings = new ClusterCheck(client, scope, loaded.engines()).run();
            out.print(output.equals("json") ? CheckReport.json(findings, where) : CheckReport.text(findings, where));
            out.flush();
            return CheckReport.exitStatus(findings);
        } catch (ClusterCheck.ClusterUnreadable e) {
            err.println("check: " + e.getMessage());
            return CANNOT_CHECK;
        } catch (RuntimeException e) {
            err.println("check: cannot read the cluster at " + config.getMasterUrl() + ": "
                    + Cli.oneLine(String.valueOf(e.getMessage())));
            return CANNOT_CHECK;
        }
    }
}
