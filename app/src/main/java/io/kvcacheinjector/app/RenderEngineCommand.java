package io.kvcacheinjector.app;

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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code render-engine -f FILE|- [--namespace NS] [--servicemonitor-crd]}: prints, as multi-document YAML, exactly
 * the children the controller would apply for each {@code CacheBlendEngine} in FILE (YAML or JSON), in apply order
 * (docs/reference/cli.md, docs/reference/cacheblend-engine.md). An invalid engine: exit 2, its validation message
 * on stderr, nothing on stdout.
 */
final class RenderEngineCommand {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final YAMLMapper YAML = new YAMLMapper(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.SPLIT_LINES)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
            .build());

    private RenderEngineCommand() {
    }

    static int run(String[] args) throws IOException {
        return run(args, System.in, System.out, System.err);
    }

    static int run(String[] args, InputStream in, PrintStream out, PrintStream err) throws IOException {
        CliArgs cli;
        String file;
        try {
            cli = CliArgs.parse(args, Set.of("-f", "--namespace"), Set.of("--servicemonitor-crd"));
            file = cli.required("-f");
        } catch (IllegalArgumentException e) {
            err.println("render-engine: " + e.getMessage());
            err.println("usage: render-engine -f FILE|- [--namespace NS] [--servicemonitor-crd]");
            return 1;
        }
        byte[] input;
        try {
            input = file.equals("-") ? in.readAllBytes() : Files.readAllBytes(Path.of(file));
        } catch (IOException e) {
            err.println("render-engine: cannot read " + file + ": " + e.getMessage());
            return 1;
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
            err.println("render-engine: " + file + " is not valid YAML or JSON: " + ReviewCommand.oneLine(e.getMessage()));
            return 1;
        }
        if (engines.isEmpty()) {
            err.println("render-engine: " + file + " holds no CacheBlendEngine (kind: CacheBlendEngine,"
                    + " apiVersion: lmcache.lmcache.ai/v1alpha1)");
            return 1;
        }
        String namespace = cli.value("--namespace").orElse("default");
        RenderContext context = new RenderContext(cli.has("--servicemonitor-crd"), Optional.empty());
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
            return 2;
        }
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        for (Map<String, Object> child : children) {
            buffer.write(YAML.writeValueAsBytes(child));
        }
        out.write(buffer.toByteArray());
        out.flush();
        return 0;
    }
}
