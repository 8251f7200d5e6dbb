package io.kvcacheinjector.app.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The live cluster that {@link KubeconfigOptions} name: the configuration, checked, and a client that answered. */
public final class Kubeconfig {
    /** Kept referenced: JUL holds loggers weakly, and fabric8's "unstable version v1alpha1" notes are noise here. */
    private static final java.util.logging.Logger FABRIC8 = java.util.logging.Logger.getLogger("io.fabric8");

    private Kubeconfig() {
    }

    /** The configuration the flags name, with short timeouts and no retries (a command, not a controller). */
    public static Config config(KubeconfigOptions options, Map<String, String> env) throws KubeconfigOptions.Unreadable {
        String kubeconfig = options.kubeconfig;
        String context = options.context;
        FABRIC8.setLevel(java.util.logging.Level.SEVERE);
        Config config;
        try {
            config = kubeconfig != null ? Config.fromKubeconfig(context, new File(kubeconfig))
                    : Config.autoConfigure(context);
        } catch (RuntimeException e) {
            throw new KubeconfigOptions.Unreadable("cannot load the kubeconfig: " + Cli.oneLine(String.valueOf(e.getMessage()))
                    + "; pass --kubeconfig FILE and --context NAME, or set KUBECONFIG");
        }
        List<String> contexts = config.getContexts() == null ? List.of()
                : config.getContexts().stream().map(c -> c.getName()).toList();
        String where = kubeconfig != null ? "the kubeconfig " + kubeconfig : "the kubeconfig";
        if (context != null && !contexts.contains(context)) {
            throw new KubeconfigOptions.Unreadable("context \"" + context + "\" is not in " + where + " (its contexts: "
                    + (contexts.isEmpty() ? "none" : String.join(", ", contexts)) + "); pass one of them with --context");
        }
        if (kubeconfig != null && config.getCurrentContext() == null) {
            throw new KubeconfigOptions.Unreadable(where + " names no current context" + (contexts.isEmpty() ? " and holds none"
                    : "; pass --context (one of: " + String.join(", ", contexts) + ")"));
        }
        if (config.getCurrentContext() == null && isBlank(env.get("KUBERNETES_SERVICE_HOST"))) {
            String variable = env.get("KUBECONFIG");
            throw new KubeconfigOptions.Unreadable(isBlank(variable)
                    ? "no kubeconfig: KUBECONFIG is not set, ~/.kube/config is missing or names no current context,"
                    + " and this is not a Pod; pass --kubeconfig FILE (and --context NAME), set KUBECONFIG, or pass"
                    + " --cluster DIR to read a file-backed cluster"
                    : "no kubeconfig: KUBECONFIG=" + variable + " gives no current context ("
                    + (java.nio.file.Files.exists(java.nio.file.Path.of(variable.split(File.pathSeparator)[0]))
                    ? "it names none" : "no such file") + "); fix KUBECONFIG, pass --kubeconfig FILE (and"
                    + " --context NAME), or pass --cluster DIR to read a file-backed cluster");
        }
        config.setRequestRetryBackoffLimit(0);
        config.setConnectionTimeout(5_000);
        config.setRequestTimeout(15_000);
        return config;
    }

    /** The namespace of the context, when it names one. */
    public static Optional<String> namespace(Config config) {
        return Optional.ofNullable(config.getNamespace()).filter(n -> !n.isBlank());
    }

    /** A client over {@code config} that has answered {@code /version}: the cluster is reachable. */
    public static KubernetesClient reachable(Config config) throws KubeconfigOptions.Unreadable {
        KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build();
        try {
            client.getKubernetesVersion();
            return client;
        } catch (KubernetesClientException e) {
            client.close();
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            String why = e.getCode() > 0 ? "HTTP " + e.getCode() + " " + Cli.oneLine(e.getMessage())
                    : root.getClass().getSimpleName() + (root.getMessage() == null ? "" : " " + Cli.oneLine(root.getMessage()));
            throw new KubeconfigOptions.Unreadable("cannot reach the cluster at " + config.getMasterUrl() + " (" + why + "); check"
                    + " --kubeconfig and --context, or pass --cluster DIR to read a file-backed cluster instead");
        } catch (RuntimeException e) {
            client.close();
            throw new KubeconfigOptions.Unreadable("cannot reach the cluster at " + config.getMasterUrl() + " ("
                    + Cli.oneLine(String.valueOf(e.getMessage())) + "); check --kubeconfig and --context");
        }
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }
}
