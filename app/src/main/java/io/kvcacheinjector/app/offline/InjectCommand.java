package io.kvcacheinjector.app.offline;

import io.kvcacheinjector.app.cli.Cli;
import io.kvcacheinjector.app.cli.KubeconfigOptions;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.zjsonpatch.JsonPatch;
import io.kvcacheinjector.adapters.k8s.file.FileClusterDirectory;
import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.app.engines.EngineLoadException;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.Warning;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code inject [--cluster DIR] -f FILE|- [-n NS]}: like {@code istioctl kube-inject}. Reads multi-document YAML holding
 * Pods and workloads with Pod templates, injects each opted-in template (both contracts) in its object's namespace
 * ({@code --namespace} fallback, then the kubeconfig context's namespace when the cluster is live, then
 * {@code default}), writes YAML to stdout and leaves other objects unchanged. The cluster is the file-backed one of
 * {@code --cluster}, or without it the live cluster of the kubeconfig, read-only. Any refusal: exit 1, one line per
 * refused object on stderr, nothing on stdout; an input or cluster that cannot be read: exit 2.
 */
@Command(name = "inject", sortOptions = false,
        description = {"Prints the objects of FILE as the webhooks would admit them now, like istioctl kube-inject:"
                + " every Pod and Pod template opted in is injected (both contracts) in its object's namespace; other"
                + " objects pass through unchanged.",
                "Without --cluster, the live cluster of the kubeconfig is read (read-only), so"
                + " `kubectl get deploy chat -o yaml | kvcache-injector inject -f -` answers what the webhook would do."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:every object admitted; the objects on stdout, warnings on stderr",
                "1:an object refused; one line per refused object on stderr (its code first), nothing on stdout",
                "2:bad usage, or the input, the engines or the cluster cannot be read; one line on stderr"})
public final class InjectCommand implements Callable<Integer> {
    /** The mappers, apart so that {@link #warmUp} can build them while picocli reads the command line. */
    private static final class Mappers {
        static final ObjectMapper JSON = new ObjectMapper();
        static final YAMLMapper YAML = new YAMLMapper(YAMLFactory.builder()
                .disable(YAMLGenerator.Feature.SPLIT_LINES)
                .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                .build());
    }

    @Option(names = "-f", paramLabel = "FILE|-", required = true, description = "The YAML to inject; - reads stdin.")
    String file;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NS", description = "The namespace of objects that name none"
            + " (default: the kubeconfig context's namespace when the cluster is live, else default).")
    String namespace;

    @Mixin
    OfflineCluster cluster = new OfflineCluster();

    @Mixin
    Cli.Help help = new Cli.Help();

    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;

    public InjectCommand(InputStream in, PrintStream out, PrintStream err, Map<String, String> env) {
        this.in = in;
        this.out = out;
        this.err = err;
        this.env = env;
    }

    static int run(String[] args) {
        return run(args, System.in, System.out, System.err);
    }

    /**
     * Builds the YAML and JSON mappers and reads and writes one small document, then the reader of cluster files
     * ({@link FileClusterDirectory#warmUp}), on the thread that calls it: {@link Main} runs it beside the parsing of
     * the command line, whose first use of picocli costs about as much (docs/explanation/decisions.md, "picocli's
     * start-up cost").
     */
    public static void warmUp() {
        try {
            JsonNode doc = Mappers.YAML.readTree("kind: Pod\nspec: {containers: [{name: a, args: [\"1\"]}]}\n");
            Mappers.YAML.writeValueAsBytes(Mappers.JSON.convertValue(doc, Object.class));
        } catch (IOException | RuntimeException e) {
            // only a warm-up: the command meets the same problem, if any, and reports it
        }
        // then the reader of --cluster's files, which the command needs next (a live cluster's run never uses it)
        FileClusterDirectory.warmUp();
    }

    /** {@code inject} with {@code args} (those after the command's name); the exit status. */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        return Cli.execute(new InjectCommand(in, out, err, System.getenv()), args, out, err);
    }

    @Override
    public Integer call() throws IOException {
        byte[] input = Cli.readInput("inject", file, in, err);
        if (input == null) {
            return Cli.USAGE;
        }
        List<JsonNode> docs = new ArrayList<>();
        try (var it = Mappers.YAML.readerFor(JsonNode.class).<JsonNode>readValues(input)) {
            while (it.hasNextValue()) {
                JsonNode d = it.nextValue();
                if (d != null && !d.isNull() && !d.isMissingNode()) {
                    docs.add(d);
                }
            }
        } catch (IOException | RuntimeException e) {
            err.println("inject: " + file + " is not valid YAML: " + Cli.oneLine(e.getMessage()));
            return Cli.USAGE;
        }
        OfflineCluster.Opened opened = open(cluster, env, err, "inject");
        if (opened == null) {
            return Cli.USAGE;
        }
        try {
            String fallbackNs = namespace != null ? namespace : opened.contextNamespace().orElse("default");
            return inject(docs, opened.wiring().useCases(), fallbackNs);
        } finally {
            opened.close();
        }
    }

    /** The cluster, or null after one line on {@code err} naming why it cannot be read. */
    static OfflineCluster.Opened open(OfflineCluster cluster, Map<String, String> env, PrintStream err, String name) {
        try {
            return cluster.open(env);
        } catch (EngineLoadException | KubeconfigOptions.Unreadable e) {
            err.println(name + ": " + Cli.oneLine(e.getMessage()));
        } catch (IllegalArgumentException e) {
            err.println(name + ": " + Cli.oneLine(e.getMessage()));
        } catch (RuntimeException e) {
            err.println(name + ": cannot load the cluster: " + Cli.oneLine(e.getMessage()));
        }
        return null;
    }

    private int inject(List<JsonNode> docs, AdmissionUseCases useCases, String fallbackNs) throws IOException {
        List<JsonNode> results = new ArrayList<>();
        List<String> refusals = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (JsonNode doc : docs) {
            Optional<ObjectNode> template = template(doc);
            if (template.isEmpty()) {
                results.add(doc);
                continue;
            }
            String ns = text(doc.path("metadata").path("namespace")).orElse(fallbackNs);
            String who = text(doc.path("kind")).orElse("Object") + " " + ns + "/"
                    + text(doc.path("metadata").path("name")).orElse(text(doc.path("metadata").path("generateName")).orElse("(unnamed)"));
            JsonNode current = template.get();
            boolean refused = false;
            for (int contract = 0; contract < 2 && !refused; contract++) {
                Object tree = Mappers.JSON.convertValue(current, Object.class);
                Decision d = contract == 0 ? useCases.kvCacheMutate().mutate(ns, new ReceivedPod(tree)) : useCases.cacheBlendMutate().mutate(ns, new ReceivedPod(tree));
                switch (d) {
                    case Decision.Refuse r -> {
                        refusals.add(who + ": " + r.message());
                        refused = true;
                    }
                    case Decision.Admit a -> {
                        current = apply(current, a.patch());
                        for (Warning w : a.warnings()) {
                            warnings.add("warning: " + who + ": " + w.message());
                        }
                    }
                    case Decision.Skip s -> {
                        current = apply(current, s.patch());
                        warnings.add("warning: " + who + ": " + s.message());
                    }
                }
            }
            if (!refused) {
                results.add(replaceTemplate(doc, current));
            }
        }
        warnings.forEach(err::println);
        if (!refusals.isEmpty()) {
            refusals.forEach(err::println);
            return Cli.NO;
        }
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        for (JsonNode r : results) {
            buffer.write(Mappers.YAML.writeValueAsBytes(r));
        }
        out.write(buffer.toByteArray());
        out.flush();
        return Cli.OK;
    }

    /** The Pod-shaped part of a document: the Pod itself, {@code spec.template}, or a CronJob's job template. */
    private static Optional<ObjectNode> template(JsonNode doc) {
        if (!doc.isObject()) {
            return Optional.empty();
        }
        if ("Pod".equals(doc.path("kind").asText()) && "v1".equals(doc.path("apiVersion").asText())) {
            return Optional.of((ObjectNode) doc);
        }
        JsonNode t = doc.path("spec").path("template");
        if (t.isObject()) {
            return Optional.of((ObjectNode) t);
        }
        JsonNode cron = doc.path("spec").path("jobTemplate").path("spec").path("template");
        return cron.isObject() ? Optional.of((ObjectNode) cron) : Optional.empty();
    }

    private static JsonNode replaceTemplate(JsonNode doc, JsonNode template) {
        if ("Pod".equals(doc.path("kind").asText()) && "v1".equals(doc.path("apiVersion").asText())) {
            return template;
        }
        ObjectNode copy = doc.deepCopy();
        if (copy.path("spec").path("template").isObject()) {
            ((ObjectNode) copy.get("spec")).set("template", template);
        } else {
            ((ObjectNode) copy.get("spec").get("jobTemplate").get("spec")).set("template", template);
        }
        return copy;
    }

    private static JsonNode apply(JsonNode target, List<PatchOp> patch) {
        if (patch.isEmpty()) {
            return target;
        }
        ArrayNode ops = Mappers.JSON.createArrayNode();
        for (PatchOp op : patch) {
            ObjectNode n = ops.addObject();
            n.put("op", op.op().json());
            n.put("path", op.path());
            if (op.op() != PatchOp.Op.REMOVE) {
                n.set("value", Mappers.JSON.valueToTree(op.value()));
            }
        }
        return JsonPatch.apply(ops, target);
    }

    private static Optional<String> text(JsonNode n) {
        return n.isTextual() && !n.asText().isEmpty() ? Optional.of(n.asText()) : Optional.empty();
    }
}
