package io.kvcacheinjector.app.reliability;

import io.kvcacheinjector.domain.Webhook;
import io.kvcacheinjector.domain.json.Json;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Generates hostile AdmissionReviews from a seed: the README's example Pods ({@code docs/examples/pods}) in a valid
 * review, then one or two damages. The same seed always gives the same bytes, so a failure is reproduced with
 * {@code -Dkvcache.hostile.seed=<seed> -Dkvcache.hostile.cases=1}.
 *
 * <p>Damages that keep the envelope as the API server writes it (the Pod alone is damaged) are marked
 * {@code envelopeIntact}: for those the oracle knows which use case judges the Pod.
 */
final class HostileReviews {
    /** The body limit of {@code serve} (its default, the API server's own limit). */
    static final int LIMIT = 3 * 1024 * 1024;
    /** The reader's nesting limit. */
    static final int MAX_DEPTH = 256;

    /** What was done to the review. */
    enum Damage {
        /** A field of the Pod replaced by a value of another JSON type. */
        WRONG_TYPE(true),
        /** Up to five fields of the Pod set to null. */
        NULLS(true),
        /** Names, keys, label and annotation values, args and env replaced by control, bidi, surrogate and other odd text. */
        ODD_TEXT(true),
        /** Thousands of args, env entries, labels, containers or volumes. */
        OVERSIZED_LISTS(true, 3),
        /** One string of up to 4 MiB. */
        HUGE_STRING(true, 2),
        /** Arrays nested up to 300 deep in a field. */
        DEEP(true),
        /** Hundreds of thousands of empty objects: small on the wire, large in memory. */
        AMPLIFY(true, 1),
        /** A field of the envelope (apiVersion, kind, request, uid, operation, namespace, dryRun, object, ...) damaged. */
        ENVELOPE(false),
        /** A key repeated in one object, at any depth. */
        DUPLICATE_KEY(false),
        /** The body cut short. */
        TRUNCATED(false),
        /** Bytes flipped, inserted or removed (invalid UTF-8 included). */
        BYTES(false);

        final boolean treeLevel;
        /** How often it is chosen, relative to the others; the large ones are rarer, so a long run stays fast. */
        final int weight;

        Damage(boolean treeLevel) {
            this(treeLevel, 10);
        }

        Damage(boolean treeLevel, int weight) {
            this.treeLevel = treeLevel;
            this.weight = weight;
        }
    }

    /** One generated review. */
    record Case(long seed, Webhook webhook, List<Damage> damages, String uid, byte[] body, boolean envelopeIntact) {
        String describe() {
            return "seed " + seed + " " + damages + " on /" + webhook.path() + " (" + body.length + " bytes)";
        }
    }

    private static final List<Map<String, Object>> KVCACHE_PODS = List.of(ExampleReviews.pod("vllm.yaml"),
            ExampleReviews.pod("sglang.yaml"), ExampleReviews.pod("vllm-ascend.yaml"),
            ExampleReviews.pod("refused-shell.yaml"));
    private static final Map<String, Object> CACHEBLEND_POD = ExampleReviews.pod("cacheblend.yaml");

    /** Text that breaks naive handling: controls, bidi, zero-width, separators, surrogates, pointer characters. */
    private static final String[] ODD = {
            "", " ", "\u0000", "\u0001\u001f", "\u007f\u0085\u009f", "\u202e\u202d\u2066\u2069", "\u200b\u200c\u200d",
            "\ufeff", "\u2028\u2029", "\ud83d\ude00", "\ud800", "\udc00", "e\u0301\u0301\u0301", "~0~1/", "/~",
            "\"\\", "\r\n\t", "${HOME}", "$(id)", "`id`", "'", "%00", "\u00e9\u00df\u4e2d\u6587", "a".repeat(300),
            "kvcache.gpustack.ai/injected", "--kv-transfer-config", "--kv-transfer-config={}", "true", "True",
            "vLLM", "SGLang", "\ufffd", "\u0130\u0131", "NaN", "-1", "1e999",
    };

    private HostileReviews() {
    }

    /** The review of {@code seed}. */
    static Case generate(long seed) {
        Random r = new Random(seed);
        Webhook webhook = switch (r.nextInt(10)) {
            case 0, 1 -> Webhook.CACHEBLEND_MUTATE;
            case 2, 3 -> Webhook.KVCACHE_VALIDATE;
            default -> Webhook.KVCACHE_MUTATE;
        };
        Map<String, Object> pod = webhook == Webhook.CACHEBLEND_MUTATE && r.nextInt(4) != 0
                ? copy(CACHEBLEND_POD) : copy(KVCACHE_PODS.get(r.nextInt(KVCACHE_PODS.size())));
        String uid = "uid-" + Long.toHexString(seed);
        Map<String, Object> review = webhook == Webhook.KVCACHE_VALIDATE
                ? ExampleReviews.review(uid, "UPDATE", pod, copy(pod)) : ExampleReviews.review(uid, "CREATE", pod, null);

        List<Damage> damages = new ArrayList<>();
        Damage first = pickDamage(r);
        damages.add(first);
        if (r.nextInt(4) == 0) {
            Damage second = pickDamage(r);
            if (second.treeLevel == first.treeLevel || !second.treeLevel) {
                damages.add(second);
            }
        }
        // tree damages first, then the bytes
        damages.sort((a, b) -> Boolean.compare(b.treeLevel, a.treeLevel));
        boolean envelopeIntact = true;
        byte[] body = null;
        for (Damage d : damages) {
            if (d.treeLevel) {
                Object target = request(review).get("object");
                if (webhook == Webhook.KVCACHE_VALIDATE && r.nextBoolean()) {
                    target = request(review).get("oldObject");
                }
                damageTree(d, r, target);
            } else if (d == Damage.ENVELOPE) {
                damageEnvelope(r, review);
                envelopeIntact = false;
            } else {
                if (body == null) {
                    body = Json.write(review).getBytes(StandardCharsets.UTF_8);
                }
                body = damageBytes(d, r, body);
                envelopeIntact = false;
            }
        }
        if (body == null) {
            body = Json.write(review).getBytes(StandardCharsets.UTF_8);
        }
        return new Case(seed, webhook, List.copyOf(damages), uid, body, envelopeIntact);
    }

    private static final int TOTAL_WEIGHT = java.util.Arrays.stream(Damage.values()).mapToInt(d -> d.weight).sum();

    private static Damage pickDamage(Random r) {
        int x = r.nextInt(TOTAL_WEIGHT);
        for (Damage d : Damage.values()) {
            x -= d.weight;
            if (x < 0) {
                return d;
            }
        }
        throw new IllegalStateException();
    }

    // ---- tree damages -------------------------------------------------------------------------------------------

    private static void damageTree(Damage d, Random r, Object pod) {
        switch (d) {
            case WRONG_TYPE -> {
                Slot s = randomSlot(r, pod);
                s.set(otherType(r, s.get()));
            }
            case NULLS -> {
                int n = 1 + r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    randomSlot(r, pod).set(null);
                }
            }
            case ODD_TEXT -> oddText(r, pod, 1 + r.nextInt(8));
            case OVERSIZED_LISTS -> oversize(r, pod);
            case HUGE_STRING -> {
                int size = r.nextInt(4) == 0 ? LIMIT + r.nextInt(LIMIT / 3) : 64 * 1024 + r.nextInt(LIMIT - 128 * 1024);
                annotations(pod).put("example.com/huge", "h".repeat(size));
            }
            case DEEP -> {
                int depth = 1 + r.nextInt(300);
                Object nested = 0L;
                for (int i = 0; i < depth; i++) {
                    nested = new ArrayList<>(List.of(nested));
                }
                Slot s = randomSlot(r, pod);
                s.set(nested);
            }
            case AMPLIFY -> {
                int n = 200_000 + r.nextInt(800_000);
                List<Object> many = new ArrayList<>(n);
                Map<String, Object> empty = Map.of();
                for (int i = 0; i < n; i++) {
                    many.add(empty);
                }
                spec(pod).put("x-amplify", many);
            }
            default -> throw new IllegalArgumentException(d.name());
        }
    }

    private static void oddText(Random r, Object pod, int times) {
        for (int i = 0; i < times; i++) {
            String odd = odd(r);
            switch (r.nextInt(6)) {
                case 0 -> labels(pod).put(odd, odd(r));
                case 1 -> annotations(pod).put(r.nextBoolean() ? odd : "kvcache.gpustack.ai/" + odd, odd(r));
                case 2 -> {
                    List<Object> containers = list(spec(pod), "containers");
                    if (!containers.isEmpty() && containers.get(0) instanceof Map<?, ?>) {
                        cast(containers.get(0)).put("name", odd);
                    }
                }
                case 3 -> {
                    List<Object> containers = list(spec(pod), "containers");
                    if (!containers.isEmpty() && containers.get(0) instanceof Map<?, ?> c) {
                        list(cast(c), "args").add(r.nextBoolean() ? odd : "--" + odd);
                    }
                }
                case 4 -> {
                    List<Object> containers = list(spec(pod), "containers");
                    if (!containers.isEmpty() && containers.get(0) instanceof Map<?, ?> c) {
                        list(cast(c), "env").add(new LinkedHashMap<>(Map.of("name", odd, "value", odd(r))));
                    }
                }
                default -> {
                    Slot s = randomSlot(r, pod);
                    if (s.get() instanceof String) {
                        s.set(odd);
                    }
                }
            }
        }
    }

    private static void oversize(Random r, Object pod) {
        int n = 1_000 + r.nextInt(r.nextInt(5) == 0 ? 100_000 : 20_000);
        List<Object> containers = list(spec(pod), "containers");
        Map<String, Object> c = containers.isEmpty() || !(containers.get(0) instanceof Map<?, ?>)
                ? new LinkedHashMap<>() : cast(containers.get(0));
        switch (r.nextInt(5)) {
            case 0 -> {
                List<Object> args = list(c, "args");
                for (int i = 0; i < n; i++) {
                    args.add(i % 3 == 0 ? "--flag-" + i : "value-" + i);
                }
            }
            case 1 -> {
                List<Object> env = list(c, "env");
                for (int i = 0; i < n / 2; i++) {
                    env.add(new LinkedHashMap<>(Map.of("name", "VAR_" + i, "value", "v" + i)));
                }
            }
            case 2 -> {
                Map<String, Object> labels = labels(pod);
                for (int i = 0; i < n / 2; i++) {
                    labels.put("example.com/l" + i, "v" + i);
                }
            }
            case 3 -> {
                for (int i = 0; i < n / 50; i++) {
                    containers.add(new LinkedHashMap<>(Map.of("name", "side-" + i, "image", "busybox")));
                }
            }
            default -> {
                List<Object> volumes = list(spec(pod), "volumes");
                for (int i = 0; i < n / 4; i++) {
                    volumes.add(new LinkedHashMap<>(Map.of("name", "v" + i, "emptyDir", Map.of())));
                }
            }
        }
    }

    // ---- envelope damages ---------------------------------------------------------------------------------------

    private static void damageEnvelope(Random r, Map<String, Object> review) {
        if (!(review.get("request") instanceof Map<?, ?>)) {
            // an earlier damage replaced the request itself: damage what is left of the envelope
            review.put(r.nextBoolean() ? "apiVersion" : "kind", anyValue(r));
            return;
        }
        Map<String, Object> request = request(review);
        switch (r.nextInt(12)) {
            case 0 -> review.put("apiVersion", r.nextBoolean() ? "admission.k8s.io/v1beta1" : anyValue(r));
            case 1 -> review.put("kind", anyValue(r));
            case 2 -> review.put("request", anyValue(r));
            case 3 -> request.put("uid", r.nextInt(3) == 0 ? odd(r) : anyValue(r));
            case 4 -> request.put("operation", r.nextBoolean() ? pick(r, "DELETE", "CONNECT", "create", "") : anyValue(r));
            case 5 -> request.put("kind", r.nextBoolean() ? Map.of("group", "apps", "version", "v1", "kind", "Deployment")
                    : anyValue(r));
            case 6 -> request.put("namespace", r.nextBoolean() ? odd(r) : anyValue(r));
            case 7 -> request.put("dryRun", anyValue(r));
            case 8 -> request.put("subResource", r.nextBoolean() ? "status" : anyValue(r));
            case 9 -> request.put("object", anyValue(r));
            case 10 -> request.put("oldObject", anyValue(r));
            default -> {
                for (String key : new ArrayList<>(request.keySet())) {
                    if (r.nextBoolean() && !key.equals("uid")) {
                        request.put(key, null);
                    }
                }
            }
        }
    }

    // ---- byte damages -------------------------------------------------------------------------------------------

    private static byte[] damageBytes(Damage d, Random r, byte[] body) {
        return switch (d) {
            case TRUNCATED -> java.util.Arrays.copyOf(body, r.nextInt(Math.max(1, body.length - 1)));
            case DUPLICATE_KEY -> duplicateKey(r, body);
            case BYTES -> {
                ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 16);
                int edits = 1 + r.nextInt(4);
                byte[] b = body.clone();
                for (int i = 0; i < edits && b.length > 0; i++) {
                    int at = r.nextInt(b.length);
                    byte[] noise = switch (r.nextInt(6)) {
                        case 0 -> new byte[]{(byte) 0xFF};
                        case 1 -> new byte[]{(byte) 0xC3};
                        case 2 -> new byte[]{(byte) 0xE2, (byte) 0x82};
                        case 3 -> new byte[]{(byte) 0xC0, (byte) 0x80};
                        case 4 -> new byte[]{(byte) 0xED, (byte) 0xA0, (byte) 0x80};
                        default -> new byte[]{(byte) r.nextInt(256)};
                    };
                    out.reset();
                    out.write(b, 0, at);
                    out.writeBytes(noise);
                    int skip = r.nextBoolean() ? 1 : 0;
                    out.write(b, Math.min(b.length, at + skip), b.length - Math.min(b.length, at + skip));
                    b = out.toByteArray();
                }
                yield b;
            }
            default -> throw new IllegalArgumentException(d.name());
        };
    }

    /** Repeats one {@code "key":} right after itself with another value, in a random object of the text. */
    private static byte[] duplicateKey(Random r, byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        List<Integer> keys = new ArrayList<>();
        for (int i = text.indexOf("\":"); i >= 0 && keys.size() < 10_000; i = text.indexOf("\":", i + 2)) {
            keys.add(i);
        }
        if (keys.isEmpty()) {
            return body; // an earlier damage left no member to repeat
        }
        int colon = keys.get(r.nextInt(keys.size()));
        int open = text.lastIndexOf('"', colon - 1);
        while (open > 0 && text.charAt(open - 1) == '\\') {
            open = text.lastIndexOf('"', open - 2);
        }
        String key = text.substring(open, colon + 2);
        String repeated = key + (r.nextBoolean() ? "\"dup\"," : "null,");
        return (text.substring(0, open) + repeated + text.substring(open)).getBytes(StandardCharsets.UTF_8);
    }

    // ---- helpers ------------------------------------------------------------------------------------------------

    /** A place in the tree: a map entry or a list element. */
    private record Slot(Object container, Object key) {
        Object get() {
            return container instanceof Map<?, ?> m ? m.get(key) : ((List<?>) container).get((Integer) key);
        }

        @SuppressWarnings("unchecked")
        void set(Object value) {
            if (container instanceof Map<?, ?> m) {
                ((Map<Object, Object>) m).put(key, value);
            } else {
                ((List<Object>) container).set((Integer) key, value);
            }
        }
    }

    /** A random place in {@code root}'s tree (the root's own members included), weighted towards shallow places. */
    private static Slot randomSlot(Random r, Object root) {
        List<Slot> slots = new ArrayList<>();
        collect(root, slots, 0);
        if (slots.isEmpty()) {
            Map<String, Object> m = cast(root instanceof Map<?, ?> ? root : new LinkedHashMap<>());
            return new Slot(m, "metadata");
        }
        return slots.get(r.nextInt(slots.size()));
    }

    private static void collect(Object node, List<Slot> out, int depth) {
        if (depth > 12 || out.size() > 5_000) {
            return;
        }
        if (node instanceof Map<?, ?> m) {
            for (Object k : m.keySet()) {
                out.add(new Slot(m, k));
                collect(m.get(k), out, depth + 1);
            }
        } else if (node instanceof List<?> l) {
            for (int i = 0; i < l.size(); i++) {
                out.add(new Slot(l, i));
                collect(l.get(i), out, depth + 1);
            }
        }
    }

    private static Object otherType(Random r, Object value) {
        for (int i = 0; i < 20; i++) {
            Object v = anyValue(r);
            if (!jsonType(v).equals(jsonType(value))) {
                return v;
            }
        }
        return value instanceof String ? 1L : "s";
    }

    static String jsonType(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Map<?, ?>) {
            return "object";
        }
        if (v instanceof List<?>) {
            return "array";
        }
        if (v instanceof Number) {
            return "number";
        }
        return v instanceof Boolean ? "boolean" : "string";
    }

    private static Object anyValue(Random r) {
        return switch (r.nextInt(9)) {
            case 0 -> null;
            case 1 -> r.nextBoolean();
            case 2 -> (long) r.nextInt();
            case 3 -> new java.math.BigDecimal("1e" + r.nextInt(400));
            case 4 -> odd(r);
            case 5 -> new ArrayList<>();
            case 6 -> new ArrayList<>(List.of(odd(r), 1L, false));
            case 7 -> new LinkedHashMap<>();
            default -> new LinkedHashMap<>(Map.of(odd(r), odd(r)));
        };
    }

    private static String odd(Random r) {
        String a = ODD[r.nextInt(ODD.length)];
        return r.nextInt(3) == 0 ? a + ODD[r.nextInt(ODD.length)] : a;
    }

    private static String pick(Random r, String... values) {
        return values[r.nextInt(values.length)];
    }

    private static <T> T copy(T value) {
        return ExampleReviews.copy(value);
    }

    private static Map<String, Object> request(Map<String, Object> review) {
        return cast(review.get("request"));
    }

    private static Map<String, Object> metadata(Object pod) {
        return child(cast(pod), "metadata");
    }

    private static Map<String, Object> labels(Object pod) {
        return child(metadata(pod), "labels");
    }

    private static Map<String, Object> annotations(Object pod) {
        return child(metadata(pod), "annotations");
    }

    private static Map<String, Object> spec(Object pod) {
        return child(cast(pod), "spec");
    }

    /** The map under {@code key}, created (or replacing a non-map) when needed. */
    private static Map<String, Object> child(Map<String, Object> parent, String key) {
        if (!(parent.get(key) instanceof Map<?, ?>)) {
            parent.put(key, new LinkedHashMap<>());
        }
        return cast(parent.get(key));
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Map<String, Object> parent, String key) {
        if (!(parent.get(key) instanceof List<?>)) {
            parent.put(key, new ArrayList<>());
        }
        return (List<Object>) parent.get(key);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Object o) {
        return (Map<String, Object>) o;
    }

}
