package io.kvcacheinjector.app.properties;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * The pieces both Pod generators share: text with awkward characters, container names, launch forms split between
 * {@code command} and {@code args}, env lists (duplicates, {@code valueFrom}, name-only entries), {@code envFrom},
 * mounts and volumes (sometimes colliding with what a webhook writes), and unread fields a real Pod carries.
 */
final class PodParts {
    private PodParts() {
    }

    /** Text with ASCII control characters, Latin-1, CJK, U+2028/U+2029, a BOM and, sometimes, an emoji. */
    static Arbitrary<String> text() {
        Arbitrary<String> chars = Arbitraries.strings()
                .withCharRange('\u0000', '\u007f')
                .withCharRange('\u00a0', '\u00ff')
                .withCharRange('\u4e00', '\u4e0f')
                .withChars('\u2028', '\u2029', '\ufeff', '\u200b')
                .ofMaxLength(10);
        return Arbitraries.frequencyOf(Tuple.of(6, chars), Tuple.of(1, chars.map(s -> s + "\uD83D\uDE80")));
    }

    /** Container names: usual ones, odd ones (unicode, control characters, a slash and a tilde, empty), random text. */
    static Arbitrary<String> containerName() {
        return Arbitraries.frequencyOf(
                Tuple.of(12, Arbitraries.of("server", "vllm", "engine", "sidecar", "proxy", "metrics")),
                Tuple.of(2, Arbitraries.of("é-服务", "tab\tname", "nul\u0000name", "a/b~c", "", " server", "cb-plugin-stage")),
                Tuple.of(1, text()));
    }

    /** How a container's argv is laid out. */
    enum Layout {
        /** {@code command} holds a head of the argv, {@code args} the rest (and the flags). */
        SPLIT,
        /** Everything in {@code command}; no {@code args}. */
        COMMAND_ONLY,
        /** Only {@code args}: the image ENTRYPOINT runs. */
        ARGS_ONLY,
        /** {@code command} with {@code args: []}. */
        EMPTY_ARGS,
        /** Neither field. */
        NEITHER
    }

    /** The {@code command}/{@code args} fields of a container (absent ones left out), as a map to merge in. */
    static Arbitrary<Map<String, Object>> launch(Arbitrary<List<String>> argv, Arbitrary<List<String>> argsOnly,
                                                 Arbitrary<Layout> layouts, Arbitrary<List<String>> flags) {
        return Combinators.combine(argv, argsOnly, layouts, Arbitraries.integers().between(1, 8), flags)
                .as((full, tail, layout, split, extra) -> {
                    Map<String, Object> fields = new LinkedHashMap<>();
                    switch (layout) {
                        case SPLIT -> {
                            int k = Math.min(split, full.size());
                            fields.put("command", new ArrayList<>(full.subList(0, k)));
                            List<String> args = new ArrayList<>(full.subList(k, full.size()));
                            args.addAll(extra);
                            fields.put("args", args);
                        }
                        case COMMAND_ONLY -> {
                            List<String> command = new ArrayList<>(full);
                            command.addAll(extra);
                            fields.put("command", command);
                        }
                        case ARGS_ONLY -> {
                            List<String> args = new ArrayList<>(tail);
                            args.addAll(extra);
                            fields.put("args", args);
                        }
                        case EMPTY_ARGS -> {
                            fields.put("command", new ArrayList<>(full));
                            fields.put("args", new ArrayList<>());
                        }
                        case NEITHER -> {
                        }
                    }
                    return fields;
                });
    }

    /** Tokens appended to a command line, drawn from {@code tokens} and, now and then, random text. */
    static Arbitrary<List<String>> flags(Arbitrary<String> tokens) {
        return Arbitraries.frequencyOf(Tuple.of(12, tokens), Tuple.of(1, text())).list().ofMaxSize(4);
    }

    /** One env entry: a literal value (often odd text), a {@code valueFrom}, or a name alone. */
    static Arbitrary<Map<String, Object>> envEntry(Arbitrary<String> names) {
        Arbitrary<Object> valueFrom = Arbitraries.of(
                Map.of("fieldRef", Map.of("fieldPath", "status.podIP")),
                Map.of("secretKeyRef", Map.of("name", "creds", "key", "token")),
                Map.of("configMapKeyRef", Map.of("name", "cfg", "key", "path", "optional", true)));
        Arbitrary<String> form = Arbitraries.frequency(Tuple.of(6, "value"), Tuple.of(3, "valueFrom"), Tuple.of(1, "name only"));
        return Combinators.combine(names, form, text(), valueFrom)
                .as((name, f, value, from) -> {
                    Map<String, Object> e = new LinkedHashMap<>();
                    e.put("name", name);
                    switch (f) {
                        case "value" -> e.put("value", value);
                        case "valueFrom" -> e.put("valueFrom", from);
                        default -> {
                        }
                    }
                    return e;
                });
    }

    /** An env list with duplicates possible, or {@code null} for no {@code env} field. */
    static Arbitrary<List<Map<String, Object>>> env(Arbitrary<String> names) {
        return envEntry(names).list().ofMaxSize(5).map(l -> (List<Map<String, Object>>) new ArrayList<>(l))
                .injectNull(0.35);
    }

    static Arbitrary<List<Map<String, Object>>> envFrom() {
        Arbitrary<Map<String, Object>> source = Arbitraries.of(
                Map.of("configMapRef", Map.of("name", "model-env")),
                Map.of("secretRef", Map.of("name", "hf-token")),
                Map.of("prefix", "X_", "configMapRef", Map.of("name", "mooncake-env", "optional", true)));
        return source.list().ofMinSize(1).ofMaxSize(2).map(l -> (List<Map<String, Object>>) new ArrayList<>(l))
                .injectNull(0.8);
    }

    /** Mounts from {@code names} at {@code paths}, or {@code null} for no {@code volumeMounts} field. */
    static Arbitrary<List<Map<String, Object>>> mounts(Arbitrary<String> names, Arbitrary<String> paths) {
        Arbitrary<Map<String, Object>> mount = Combinators.combine(names, paths, Arbitraries.of(true, false))
                .as((name, path, readOnly) -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("name", name);
                    m.put("mountPath", path);
                    if (readOnly) {
                        m.put("readOnly", true);
                    }
                    return m;
                });
        return mount.list().ofMaxSize(3).map(l -> (List<Map<String, Object>>) new ArrayList<>(l)).injectNull(0.45);
    }

    /** Volumes named from {@code names} with assorted sources, or {@code null} for no {@code volumes} field. */
    static Arbitrary<List<Map<String, Object>>> volumes(Arbitrary<String> names) {
        Arbitrary<Map<String, Object>> source = Arbitraries.of(
                Map.of("emptyDir", Map.of()),
                Map.of("emptyDir", Map.of("medium", "Memory", "sizeLimit", "8Gi")),
                Map.of("hostPath", Map.of("path", "/dev/shm", "type", "Directory")),
                Map.of("configMap", Map.of("name", "cfg")),
                Map.of("persistentVolumeClaim", Map.of("claimName", "models")));
        Arbitrary<Map<String, Object>> volume = Combinators.combine(names, source).as((name, src) -> {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("name", name);
            v.putAll(src);
            return v;
        });
        return volume.list().ofMaxSize(3).map(l -> (List<Map<String, Object>>) new ArrayList<>(l)).injectNull(0.45);
    }

    /** Fields no webhook reads but real containers carry (ports, resources, probes), sometimes none. */
    static Arbitrary<Map<String, Object>> unreadContainerFields() {
        return Arbitraries.of(
                Map.<String, Object>of(),
                Map.<String, Object>of("ports", List.of(Map.of("containerPort", 8000, "name", "http", "protocol", "TCP"))),
                Map.<String, Object>of("resources", Map.of("limits", Map.of("nvidia.com/gpu", "1", "memory", "64Gi"),
                        "requests", Map.of("cpu", "500m"))),
                Map.<String, Object>of("imagePullPolicy", "IfNotPresent", "workingDir", "/workspace",
                        "readinessProbe", Map.of("httpGet", Map.of("path", "/health", "port", 8000), "periodSeconds", 5)),
                Map.<String, Object>of("securityContext", Map.of("runAsNonRoot", true, "runAsUser", 1000)));
    }

    /** An init container named {@code name}. */
    static Map<String, Object> initContainer(String name) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("name", name);
        c.put("image", "busybox:1.36");
        c.put("command", new ArrayList<>(List.of("sh", "-c", "true")));
        return c;
    }

    /**
     * Puts {@code value} under {@code key}; a {@code null} value leaves the field out, or, when {@code keepNulls},
     * writes it as an explicit JSON {@code null} (which a hand-written manifest can carry).
     */
    static void put(Map<String, Object> map, String key, Object value, boolean keepNulls) {
        if (value != null || keepNulls) {
            map.put(key, value);
        }
    }

    /** The metadata half of a generated Pod. */
    record Meta(String requestNamespace, String namespaceForm, String nameForm, Map<String, Object> labels,
                        Map<String, Object> annotations, String containerAnnotation, boolean keepNulls) {
    }

    /** The spec half of a generated Pod; {@code targetCount} copies of {@code target} go among {@code others}. */
    record SpecParts(Map<String, Object> target, List<Map<String, Object>> others, int targetCount, int targetIndex,
                             List<String> initNames, List<Map<String, Object>> volumes, Boolean hostIpc,
                             Map<String, Object> extras) {
    }

    /**
     * Assembles a Pod: the target placed among the other containers ({@code targetCount} copies: none, one, or a
     * second same-named one at the end), and the container annotation {@code containerKey} set as
     * {@code m.containerAnnotation()} says.
     */
    static GeneratedPod assemble(Meta m, SpecParts s, String containerKey) {
        List<Map<String, Object>> containers = new ArrayList<>(s.others());
        if (s.targetCount() > 0) {
            containers.add(Math.min(s.targetIndex(), containers.size()), s.target());
        }
        if (s.targetCount() > 1) {
            containers.add(s.target());
        }
        Map<String, Object> metadata = new LinkedHashMap<>();
        switch (m.nameForm()) {
            case "name" -> metadata.put("name", "chat-0");
            case "generateName" -> metadata.put("generateName", "chat-7d9f-");
            case "odd" -> metadata.put("name", "chat-é\u0007");
            default -> {
            }
        }
        switch (m.namespaceForm()) {
            case "same" -> metadata.put("namespace", m.requestNamespace());
            case "empty" -> metadata.put("namespace", "");
            default -> {
            }
        }
        PodParts.put(metadata, "labels", m.labels(), m.keepNulls());
        Map<String, Object> annotations = m.annotations() == null ? null : new LinkedHashMap<>(m.annotations());
        if (annotations != null && s.targetCount() > 0) {
            String key = containerKey;
            String targetName = (String) s.target().get("name");
            List<String> inits = s.initNames() == null ? List.of() : s.initNames();
            switch (m.containerAnnotation()) {
                case "as a user would" -> {
                    if (containers.size() > 1) {
                        annotations.put(key, targetName);
                    }
                }
                case "always" -> annotations.put(key, targetName);
                case "empty" -> annotations.put(key, "");
                case "unknown name" -> annotations.put(key, "no-such-container");
                case "init container" -> annotations.put(key, inits.isEmpty() ? "init" : inits.get(0));
                default -> {
                }
            }
        }
        PodParts.put(metadata, "annotations", annotations, m.keepNulls());
        Map<String, Object> spec = new LinkedHashMap<>();
        if (s.initNames() != null) {
            spec.put("initContainers", s.initNames().stream().map(PodParts::initContainer).toList());
        }
        spec.put("containers", containers);
        PodParts.put(spec, "volumes", s.volumes(), m.keepNulls());
        PodParts.put(spec, "hostIPC", s.hostIpc(), false);
        spec.putAll(s.extras());
        Map<String, Object> pod = new LinkedHashMap<>();
        pod.put("apiVersion", "v1");
        pod.put("kind", "Pod");
        pod.put("metadata", metadata);
        pod.put("spec", spec);
        @SuppressWarnings("unchecked")
        Map<String, Object> fresh = (Map<String, Object>) JsonTrees.reparsed(pod);
        return new GeneratedPod(m.requestNamespace(), fresh);
    }
}
