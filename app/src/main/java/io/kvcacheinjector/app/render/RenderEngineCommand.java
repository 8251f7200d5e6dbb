package io.kvcacheinjector.app.render;

import io.kvcacheinjector.app.cli.Cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.kvcacheinjector.domain.cacheblend.engine.EngineRendering;
import io.kvcacheinjector.domain.cacheblend.engine.RenderContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code render-engine -f FILE|- [--namespace NS] [--servicemonitor-crd]}: prints, as multi-document YAML, exactly
 * the children the controller would apply for each {@code CacheBlendEngine} in FILE (YAML or JSON), in apply order
 * (docs/reference/cli.md, docs/reference/cacheblend-engine.md). An invalid engine: exit 1, its validation message
 * on stderr, nothing on stdout; an input that cannot be read or holds no engine: exit 2.
 */
@Command(name = "render-engine", sortOptions = false,
        description = {"Prints, as multi-document YAML, exactly the children serve --reconcile-cacheblend applies for"
                + " each CacheBlendEngine in FILE (YAML or JSON), in apply order. No cluster is read."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:every engine valid; the children on stdout",
                "1:an engine is invalid; its validation message on stderr, nothing on stdout",
                "2:bad usage, or an input that cannot be read or holds no CacheBlendEngine; one line on stderr"})
public final class RenderEngineCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.SPLIT_LINES)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
            .build());

    @Option(names = "-f", paramLabel = "FILE|-", required = true, description = "The CacheBlendEngines; - reads"
            + " stdin.")
    String file;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NS", description = "The namespace of engines that name"
            + " none (default default).")
    String namespace;

    @Option(names = "--servicemonitor-crd", arity = "0", description = "The API server serves ServiceMonitors"
            + " (without it none is printed, as the controller would create none).")
    boolean serviceMonitorCrd;

    @Mixin
    Cli.Help help = new Cli.Help();

    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;

    public RenderEngineCommand(InputStream in, PrintStream out, PrintStream err) {
        this.in = in;
        this.out = out;
        this.err = err;
    }

    static int run(String[] args) {
        return run(args, System.in, System.out, System.err);
    }

    static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        return Cli.execute(new RenderEngineCommand(in, out, err), args, out, err);
    }

    @Override
    public Integer call() throws IOException {
        byte[] input = Cli.readInput("render-engine", file, in, err);
        if (input == null) {
            return Cli.USAGE;
        }
        List<Map<String, Object>> engines = new ArrayList<>();
        try (var it = YAML.readerFor(Object.class).<Object>readValues(input)) {
            while (it.hasNextValue()) {
                Object doc = it.nextValue();
                if (doc instanceof Map<?, ?> m && "CacheBlendEngine".equals(m.get("kind"))) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> engine = JSON.convertValue(m, Map.class);
                    engines.add(engine);
                } else if (doc != null) {
                    err.println("warning: " + file + ": a document that is not a CacheBlendEngine is ignored ("
                            + (doc instanceof Map<?, ?> m ? "kind " + m.get("kind") : "not an object") + ")");
                }
            }
        } catch (IOException | RuntimeException e) {
            err.println("render-engine: " + file + " is not valid YAML or JSON: " + Cli.oneLine(e.getMessage()));
            return Cli.USAGE;
        }
        if (engines.isEmpty()) {
            err.println("render-engine: " + file + " holds no CacheBlendEngine (kind: CacheBlendEngine,"
                    + " apiVersion: lmcache.lmcache.ai/v1alpha1)");
            return Cli.USAGE;
        }
        String namespace = this.namespace == null ? "default" : this.namespace;
        RenderContext context = new RenderContext(serviceMonitorCrd, Optional.empty());
        List<Map<String, Object>> children = new ArrayList<>();
        List<String> invalid = new ArrayList<>();
        for (Map<String, Object> engine : engines) {
            switch (EngineRendering.render(engine, namespace, context)) {
                case EngineRendering.Rendered r -> {
                    children.addAll(r.children());
                    r.spec().l2().flatMap(l2 -> l2.authSecret()).ifPresent(ref -> err.println("note: "
                            + r.engine().display() + ": the copy of Secret " + ref.name() + " is printed without"
                            + " data; the controller copies the data it reads from the cluster"));
                }
                case EngineRendering.Invalid i -> invalid.add(i.message());
            }
        }
        if (!invalid.isEmpty()) {
            invalid.forEach(err::println);
            return Cli.NO;
        }
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        for (Map<String, Object> child : children) {
            buffer.write(YAML.writeValueAsBytes(child));
        }
        out.write(buffer.toByteArray());
        out.flush();
        return Cli.OK;
    }
}
