package io.kvcacheinjector.domain.pod;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a Pod (or a Pod template: an object with {@code metadata} and {@code spec}) from a plain JSON tree
 * (maps, lists, strings). A field of the wrong type yields {@link PodReading.Unreadable} naming the field,
 * never an exception. Fields this project does not read are ignored, whatever their shape.
 */
public final class PodReader {
    private PodReader() {
    }

    /** Reads {@code object}, a JSON object as a {@code Map}. */
    public static PodReading read(Object object) {
        try {
            return new PodReading.Read(readPod(object));
        } catch (Shape e) {
            return new PodReading.Unreadable(e.getMessage());
        }
    }

    private static final class Shape extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Shape(String message) {
            super(message, null, false, false);
        }
    }

    private static Pod readPod(Object object) {
        Map<String, Object> root = map(object, "the object");
        Optional<Map<String, Object>> metadata = optMap(root.get("metadata"), "metadata");
        Map<String, Object> md = metadata.orElse(Map.of());
        Optional<Map<String, Object>> spec = optMap(root.get("spec"), "spec");
        Map<String, Object> sp = spec.orElse(Map.of());
        Optional<Map<String, String>> annotations = optStringMap(md.get("annotations"), "metadata.annotations");
        Optional<Map<String, String>> labels = optStringMap(md.get("labels"), "metadata.labels");
        List<Container> containers = containers(sp.get("containers"), "spec.containers");
        List<Container> inits = containers(sp.get("initContainers"), "spec.initContainers");
        Optional<List<Volume>> volumes = optList(sp.get("volumes"), "spec.volumes").map(l -> {
            List<Volume> out = new ArrayList<>();
            for (int i = 0; i < l.size(); i++) {
                Element where = new Element("spec.volumes", i);
                Map<String, Object> v = map(l.get(i), where);
                String source = "unknown";
                for (String k : v.keySet()) {
                    if (!k.equals("name")) {
                        source = k;
                        break;
                    }
                }
                out.add(new Volume(optString(v.get("name"), where, ".name").orElse(""), source));
            }
            return out;
        });
        Object hostIpc = sp.get("hostIPC");
        if (hostIpc != null && !(hostIpc instanceof Boolean)) {
            throw new Shape("spec.hostIPC is not a boolean");
        }
        Optional<List<String>> pullSecrets = optList(sp.get("imagePullSecrets"), "spec.imagePullSecrets").map(l -> {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < l.size(); i++) {
                Element where = new Element("spec.imagePullSecrets", i);
                out.add(optString(map(l.get(i), where).get("name"), where, ".name").orElse(""));
            }
            return out;
        });
        return new Pod(
                optString(md.get("namespace"), "metadata.namespace"),
                optString(md.get("name"), "metadata.name"),
                optString(md.get("generateName"), "metadata.generateName"),
                labels.orElse(Map.of()),
                annotations.orElse(Map.of()),
                metadata.isPresent(),
                annotations.isPresent(),
                containers,
                inits,
                volumes,
                Boolean.TRUE.equals(hostIpc),
                pullSecrets);
    }

    private static List<Container> containers(Object value, String where) {
        Optional<List<Object>> list = optList(value, where);
        List<Container> out = new ArrayList<>();
        if (list.isEmpty()) {
            return out;
        }
        List<Object> l = list.get();
        for (int i = 0; i < l.size(); i++) {
            out.add(container(i, l.get(i), new Element(where, i)));
        }
        return out;
    }

    private static Container container(int index, Object value, Element where) {
        Map<String, Object> c = map(value, where);
        String name = optString(c.get("name"), where, ".name").orElse("");
        Optional<List<String>> command = optStringList(c.get("command"), where, ".command");
        Optional<List<String>> args = optStringList(c.get("args"), where, ".args");
        Optional<List<EnvVar>> env = optList(c.get("env"), where, ".env").map(l -> {
            List<EnvVar> out = new ArrayList<>(l.size());
            for (int i = 0; i < l.size(); i++) {
                Element w = new Element(where, ".env", i);
                Map<String, Object> e = map(l.get(i), w);
                String n = optString(e.get("name"), w, ".name").orElseThrow(() -> new Shape(w + ".name is missing"));
                Optional<String> v = optString(e.get("value"), w, ".value");
                Object vf = e.get("valueFrom");
                if (vf != null && !(vf instanceof Map)) {
                    throw new Shape(w + ".valueFrom is not an object");
                }
                out.add(new EnvVar(n, v, vf != null, l.get(i)));
            }
            return out;
        });
        List<EnvFromSource> envFrom = new ArrayList<>();
        optList(c.get("envFrom"), where, ".envFrom").ifPresent(l -> {
            for (int i = 0; i < l.size(); i++) {
                Element w = new Element(where, ".envFrom", i);
                Map<String, Object> e = map(l.get(i), w);
                Optional<Map<String, Object>> cm = optMap(e.get("configMapRef"), w, ".configMapRef");
                Optional<Map<String, Object>> sec = optMap(e.get("secretRef"), w, ".secretRef");
                if (cm.isPresent()) {
                    envFrom.add(new EnvFromSource("ConfigMap", optString(cm.get().get("name"), w, ".configMapRef.name").orElse("")));
                } else if (sec.isPresent()) {
                    envFrom.add(new EnvFromSource("Secret", optString(sec.get().get("name"), w, ".secretRef.name").orElse("")));
                } else {
                    envFrom.add(new EnvFromSource("unknown", ""));
                }
            }
        });
        Optional<List<VolumeMount>> mounts = optList(c.get("volumeMounts"), where, ".volumeMounts").map(l -> {
            List<VolumeMount> out = new ArrayList<>(l.size());
            for (int i = 0; i < l.size(); i++) {
                Element w = new Element(where, ".volumeMounts", i);
                Map<String, Object> m = map(l.get(i), w);
                out.add(new VolumeMount(optString(m.get("name"), w, ".name").orElse(""),
                        optString(m.get("mountPath"), w, ".mountPath").orElse("")));
            }
            return out;
        });
        return new Container(index, name, command, args, env, envFrom, mounts);
    }

    /**
     * The place of a list element ({@code spec.containers[1].env[0]}), written out only for a message: a Pod is read
     * on every admission, and it is almost never malformed.
     */
    private record Element(Object parent, String list, int index) {
        Element(String list, int index) {
            this("", list, index);
        }

        @Override
        public String toString() {
            return parent + list + "[" + index + "]";
        }
    }

    private static Map<String, Object> map(Object value, Object where) {
        return map(value, where, "");
    }

    /** {@code where} and {@code field} together name the value ({@code where + field}), written out only for a message. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value, Object where, String field) {
        if (value instanceof Map<?, ?> m) {
            for (Object k : m.keySet()) {
                if (!(k instanceof String)) {
                    throw new Shape(where + field + " has a key that is not a string");
                }
            }
            return (Map<String, Object>) m;
        }
        throw new Shape(where + field + " is not an object");
    }

    private static Optional<Map<String, Object>> optMap(Object value, String where) {
        return optMap(value, where, "");
    }

    private static Optional<Map<String, Object>> optMap(Object value, Object where, String field) {
        return value == null ? Optional.empty() : Optional.of(map(value, where, field));
    }

    private static Optional<List<Object>> optList(Object value, String where) {
        return optList(value, where, "");
    }

    @SuppressWarnings("unchecked")
    private static Optional<List<Object>> optList(Object value, Object where, String field) {
        if (value == null) {
            return Optional.empty();
        }
        if (value instanceof List<?> l) {
            return Optional.of((List<Object>) l);
        }
        throw new Shape(where + field + " is not a list");
    }

    private static Optional<String> optString(Object value, String where) {
        return optString(value, where, "");
    }

    private static Optional<String> optString(Object value, Object where, String field) {
        if (value == null) {
            return Optional.empty();
        }
        if (value instanceof String s) {
            return Optional.of(s);
        }
        throw new Shape(where + field + " is not a string");
    }

    private static Optional<List<String>> optStringList(Object value, Object where, String field) {
        return optList(value, where, field).map(l -> {
            List<String> out = new ArrayList<>(l.size());
            for (int i = 0; i < l.size(); i++) {
                Object o = l.get(i);
                if (!(o instanceof String s)) {
                    throw new Shape(where + field + "[" + i + "] is not a string");
                }
                out.add(s);
            }
            return out;
        });
    }

    private static Optional<Map<String, String>> optStringMap(Object value, String where) {
        return optMap(value, where).map(m -> {
            Map<String, String> out = new LinkedHashMap<>();
            for (Map.Entry<String, Object> e : m.entrySet()) {
                if (!(e.getValue() instanceof String s)) {
                    throw new Shape(where + "[\"" + e.getKey() + "\"] is not a string");
                }
                out.put(e.getKey(), s);
            }
            return out;
        });
    }
}
