package io.kvcacheinjector.app;

import io.kvcacheinjector.domain.pod.ReceivedPod;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.zjsonpatch.JsonPatch;
import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.app.engines.EngineLoadException;
import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.Warning;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code inject --cluster DIR -f FILE|- [--namespace NS]}: like {@code istioctl kube-inject}. Reads multi-document
 * YAML holding Pods and workloads with Pod templates, injects each opted-in template (both contracts) in its object's
 * namespace ({@code --namespace} fallback, then {@code default}), writes YAML to stdout and leaves other objects
 * unchanged. Any refusal: exit 2, one line per refused object on stderr, nothing on stdout.
 */
final class InjectCommand {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.SPLIT_LINES)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .build());

    private InjectCommand() {
    }

    static int run(String[] args) throws IOException {
        return run(args, System.in, System.out, System.err);
    }

    static int run(String[] args, InputStream in, PrintStream out, PrintStream err) throws IOException {
        CliArgs cli;
        try {
            Set<String> valued = new HashSet<>(OfflineCluster.VALUED);
            valued.add("-f");
            cli = CliArgs.parse(args, valued, OfflineCluster.SWITCHES);
            cli.required("--cluster");
            cli.required("-f");
        } catch (IllegalArgumentException e) {
            err.println("inject: " + e.getMessage());
            return 1;
        }
        String file = cli.required("-f");
        byte[] input;
        try {
            input = file.equals("-") ? in.readAllBytes() : Files.readAllBytes(Path.of(file));
        } catch (IOException e) {
            err.println("inject: cannot read " + file + ": " + e.getMessage());
            return 1;
        }
        List<JsonNode> docs = new ArrayList<>();
        try (var it = YAML.readerFor(JsonNode.class).<JsonNode>readValues(input)) {
            while (it.hasNextValue()) {
                JsonNode d = it.nextValue();
                if (d != null && !d.isNull() && !d.isMissingNode()) {
                    docs.add(d);
                }
            }
        } catch (IOException | RuntimeException e) {
            err.println("inject: " + file + " is not valid YAML: " + ReviewCommand.oneLine(e.getMessage()));
            return 1;
        }
        AdmissionUseCases useCases;
        try {
            useCases = OfflineCluster.wiring(cli).useCases();
        } catch (EngineLoadException e) {
            err.println("inject: " + ReviewCommand.oneLine(e.getMessage()));
            return 1;
        } catch (RuntimeException e) {
            err.println("inject: cannot load the cluster: " + ReviewCommand.oneLine(e.getMessage()));
            return 1;
        }
        String fallbackNs = cli.value("--namespace").orElse("default");
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
                Object tree = JSON.convertValue(current, Object.class);
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
            return 2;
        }
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        for (JsonNode r : results) {
            buffer.write(YAML.writeValueAsBytes(r));
        }
        out.write(buffer.toByteArray());
        out.flush();
        return 0;
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
        ArrayNode ops = JSON.createArrayNode();
        for (PatchOp op : patch) {
            ObjectNode n = ops.addObject();
            n.put("op", op.op().json());
            n.put("path", op.path());
            if (op.op() != PatchOp.Op.REMOVE) {
                n.set("value", JSON.valueToTree(op.value()));
            }
        }
        return JsonPatch.apply(ops, target);
    }

    private static Optional<String> text(JsonNode n) {
        return n.isTextual() && !n.asText().isEmpty() ? Optional.of(n.asText()) : Optional.empty();
    }
}
