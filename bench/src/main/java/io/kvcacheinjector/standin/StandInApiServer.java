package io.kvcacheinjector.standin;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvcacheinjector.adapters.http.tls.ServingCertificate;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;

/**
 * A stand-in for the Kubernetes API server, for the AOT cache's training run only ({@code aot-training}): HTTPS on
 * the loopback address, holding a few objects in memory and answering what the webhook's informers and its
 * CacheBlendEngine controller ask — lists, watches (the WebSocket upgrade fabric8 makes, or a streamed HTTP watch),
 * gets, creates, replaces, merge and apply patches, deletes, and the discovery documents of the kinds it knows. It is
 * no API server: no validation, no admission, no watch events after the upgrade, no authentication (any bearer
 * token is accepted). It exists because an image build cannot reach an API server, and a training run that does
 * not take the informer path leaves fabric8's client, its informers and the JDK's HTTP client out of the cache
 * (docs/explanation/performance-log.md, "Start-up against an API server").
 */
public final class StandInApiServer implements AutoCloseable {
    /** The kinds it serves discovery for; objects of other kinds can still be stored and listed. */
    private static final List<Kind> KINDS = List.of(
            new Kind("worker.gpustack.ai/v1alpha1", "KVCachePoolBinding", "kvcachepoolbindings", true),
            new Kind("worker.gpustack.ai/v1alpha1", "KVCachePool", "kvcachepools", false),
            new Kind("worker.gpustack.ai/v1alpha1", "KVCacheBackend", "kvcachebackends", false),
            new Kind("lmcache.lmcache.ai/v1alpha1", "CacheBlendEngine", "cacheblendengines", true),
            new Kind("v1", "ConfigMap", "configmaps", true),
            new Kind("v1", "Secret", "secrets", true),
            new Kind("v1", "Service", "services", true),
            new Kind("v1", "Namespace", "namespaces", false),
            new Kind("apps/v1", "DaemonSet", "daemonsets", true),
            new Kind("coordination.k8s.io/v1", "Lease", "leases", true));
    private static final String WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    private final ObjectMapper json = new ObjectMapper();
    private final SSLServerSocket socket;
    /** Objects by {@code apiVersion|plural|namespace|name}, sorted so that lists come out in a stable order. */
    private final Map<String, Map<String, Object>> objects = new ConcurrentSkipListMap<>();
    private final AtomicLong resourceVersion = new AtomicLong(1000);
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** One resource kind: its {@code apiVersion}, {@code kind} and plural. */
    private record Kind(String apiVersion, String kind, String plural, boolean namespaced) {
    }

    /** A request path taken apart: {@code /api/v1[/namespaces/NS]/PLURAL[/NAME[/SUBRESOURCE]]}, or discovery. */
    private record Target(String apiVersion, String namespace, String plural, String name, String subresource) {
        boolean collection() {
            return name.isEmpty();
        }

        String key(String objectName) {
            return apiVersion + "|" + plural + "|" + namespace + "|" + objectName;
        }

        String prefix() {
            return apiVersion + "|" + plural + "|" + (namespace.isEmpty() ? "" : namespace + "|");
        }
    }

    private StandInApiServer(SSLServerSocket socket) {
        this.socket = socket;
    }

    /**
     * Starts serving on a free loopback port with {@code certificate}, holding {@code initial} (Kubernetes objects as
     * JSON trees, each with {@code apiVersion}, {@code kind} and {@code metadata.name}).
     */
    public static StandInApiServer start(ServingCertificate certificate, List<Map<String, Object>> initial)
            throws IOException {
        SSLContext tls;
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            char[] password = "stand-in".toCharArray();
            store.setKeyEntry("serving", certificate.key(), password,
                    certificate.chain().toArray(java.security.cert.Certificate[]::new));
            KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keys.init(store, password);
            tls = SSLContext.getInstance("TLS");
            tls.init(keys.getKeyManagers(), null, null);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot set up TLS for the stand-in API server: " + e.getMessage(), e);
        }
        SSLServerSocket socket = (SSLServerSocket) tls.getServerSocketFactory()
                .createServerSocket(0, 64, InetAddress.getLoopbackAddress());
        StandInApiServer server = new StandInApiServer(socket);
        for (Map<String, Object> object : initial) {
            server.store(object);
        }
        Thread.ofPlatform().daemon().name("stand-in-api-accept").start(server::accept);
        return server;
    }

    /**
     * A kubeconfig for this server: its URL, trusting {@code caPem} (the CA of the certificate it serves), a token
     * it accepts; fabric8 reads it from the {@code kubeconfig} system property before {@code $KUBECONFIG}.
     */
    public String kubeconfig(String caPem) {
        String ca = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII));
        return """
                apiVersion: v1
                kind: Config
                clusters:
                  - name: stand-in
                    cluster:
                      server: %s
                      certificate-authority-data: %s
                users:
                  - name: training
                    user:
                      token: aot-training
                contexts:
                  - name: stand-in
                    context:
                      cluster: stand-in
                      user: training
                current-context: stand-in
                """.formatted(url(), ca);
    }

    /** {@code https://127.0.0.1:PORT}. */
    public String url() {
        return "https://" + socket.getInetAddress().getHostAddress() + ":" + socket.getLocalPort();
    }

    /**
     * How many requests of each sort it answered: {@code list}, {@code watch} (of which {@code websocket}),
     * {@code get}, {@code create}, {@code replace}, {@code patch}, {@code delete}, {@code discovery},
     * {@code unanswered}; each also per plural, as {@code list kvcachepoolbindings}.
     */
    public Map<String, Long> counts() {
        Map<String, Long> out = new java.util.TreeMap<>();
        counts.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    /** The object stored under this {@code apiVersion}, plural, namespace ("" when cluster-scoped) and name. */
    public Optional<Map<String, Object>> object(String apiVersion, String plural, String namespace, String name) {
        return Optional.ofNullable(objects.get(apiVersion + "|" + plural + "|" + namespace + "|" + name));
    }

    @Override
    public void close() {
        closed = true;
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
        for (Socket s : connections) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket s = socket.accept();
                connections.add(s);
                Thread.ofPlatform().daemon().name("stand-in-api-connection").start(() -> serve(s));
            } catch (IOException e) {
                if (!closed) {
                    count("accept-failed");
                }
            }
        }
    }

    /** One connection: requests until the client closes it (HTTP/1.1 keep-alive), or a watch that holds it. */
    private void serve(Socket s) {
        try (s) {
            InputStream in = new BufferedInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            while (!closed) {
                String requestLine = line(in);
                if (requestLine == null || requestLine.isEmpty()) {
                    return;
                }
                Map<String, String> headers = new LinkedHashMap<>();
                for (String h = line(in); h != null && !h.isEmpty(); h = line(in)) {
                    int colon = h.indexOf(':');
                    if (colon > 0) {
                        headers.put(h.substring(0, colon).strip().toLowerCase(Locale.ROOT), h.substring(colon + 1).strip());
                    }
                }
                byte[] body = body(in, headers);
                String[] parts = requestLine.split(" ");
                if (parts.length < 2) {
                    return;
                }
                if (!answer(parts[0], parts[1], headers, body, in, out)) {
                    return; // a watch ended: the connection is done
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                count("connection-failed");
            }
        } finally {
            connections.remove(s);
        }
    }

    /** Answers one request; false when the connection must not be used again (a watch). */
    private boolean answer(String method, String uri, Map<String, String> headers, byte[] body, InputStream in,
                           OutputStream out) throws IOException {
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        Map<String, String> query = query(q < 0 ? "" : uri.substring(q + 1));
        if (path.equals("/version")) {
            count("discovery");
            send(out, 200, Map.of("major", "1", "minor", "36", "gitVersion", "v1.36.0-stand-in",
                    "platform", "linux/amd64"));
            return true;
        }
        Optional<String> discovery = discovery(path);
        if (discovery.isPresent()) {
            count("discovery");
            List<Map<String, Object>> resources = new ArrayList<>();
            for (Kind k : KINDS) {
                if (k.apiVersion().equals(discovery.get())) {
                    resources.add(Map.of("name", k.plural(), "singularName", k.kind().toLowerCase(Locale.ROOT),
                            "namespaced", k.namespaced(), "kind", k.kind(), "verbs", List.of("create", "delete",
                                    "get", "list", "patch", "update", "watch")));
                }
            }
            if (resources.isEmpty()) {
                send(out, 404, status(404, "NotFound", "the server could not find the requested resource"));
            } else {
                send(out, 200, Map.of("kind", "APIResourceList", "apiVersion", "v1", "groupVersion",
                        discovery.get(), "resources", resources));
            }
            return true;
        }
        Optional<Target> parsed = target(path);
        if (parsed.isEmpty()) {
            count("unanswered");
            send(out, 404, status(404, "NotFound", "the stand-in API server does not serve " + path));
            return true;
        }
        Target t = parsed.get();
        switch (method) {
            case "GET" -> {
                if (t.collection() && ("true".equals(query.get("watch")) || "1".equals(query.get("watch")))) {
                    watch(t, headers, in, out);
                    return false;
                }
                if (t.collection()) {
                    count("list", t.plural());
                    send(out, 200, list(t, query));
                    return true;
                }
                count("get", t.plural());
                Map<String, Object> o = objects.get(t.key(t.name()));
                if (o == null) {
                    send(out, 404, status(404, "NotFound", t.plural() + " \"" + t.name() + "\" not found"));
                } else {
                    send(out, 200, o);
                }
            }
            case "POST" -> {
                count("create", t.plural());
                Map<String, Object> o = tree(body);
                if (t.plural().endsWith("reviews")) { // self-subject rules or access reviews: everything is allowed
                    o.put("status", Map.of("allowed", true, "incomplete", false, "nonResourceRules", List.of(),
                            "resourceRules", List.of(Map.of("verbs", List.of("*"), "apiGroups", List.of("*"),
                                    "resources", List.of("*")))));
                    send(out, 201, o);
                    return true;
                }
                String name = String.valueOf(metadata(o).get("name"));
                if (objects.containsKey(t.key(name))) {
                    send(out, 409, status(409, "AlreadyExists", t.plural() + " \"" + name + "\" already exists"));
                } else {
                    send(out, 201, store(t, name, o));
                }
            }
            case "PUT" -> {
                count("replace", t.plural());
                send(out, 200, store(t, t.name(), tree(body)));
            }
            case "PATCH" -> {
                count("patch", t.plural());
                Map<String, Object> current = objects.get(t.key(t.name()));
                Object patch = body.length == 0 ? Map.of() : json.readValue(body, Object.class);
                Map<String, Object> merged = current == null ? new LinkedHashMap<>() : deepCopy(current);
                if (patch instanceof Map<?, ?> m) { // a merge or apply patch; a JSON Patch (a list) changes nothing
                    merge(merged, m);
                }
                if (current == null && !(headers.getOrDefault("content-type", "").contains("apply-patch"))) {
                    send(out, 404, status(404, "NotFound", t.plural() + " \"" + t.name() + "\" not found"));
                } else {
                    send(out, 200, store(t, t.name(), merged));
                }
            }
            case "DELETE" -> {
                count("delete", t.plural());
                objects.remove(t.key(t.name()));
                send(out, 200, status(200, "", "deleted"));
            }
            default -> {
                count("unanswered");
                send(out, 405, status(405, "MethodNotAllowed", method + " is not served"));
            }
        }
        return true;
    }

    /**
     * Holds a watch open until the client or {@link #close()} ends it: a WebSocket when the client asks for the
     * upgrade (as fabric8 does first), else a chunked HTTP stream. No events are sent: nothing changes here.
     */
    private void watch(Target t, Map<String, String> headers, InputStream in, OutputStream out) throws IOException {
        count("watch", t.plural());
        String key = headers.get("sec-websocket-key");
        if ("websocket".equalsIgnoreCase(headers.getOrDefault("upgrade", "")) && key != null) {
            count("websocket");
            String accept;
            try {
                accept = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                        .digest((key + WEBSOCKET_GUID).getBytes(StandardCharsets.US_ASCII)));
            } catch (GeneralSecurityException e) {
                throw new IOException(e);
            }
            out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: " + accept + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            // the client's frames are read and dropped; its close frame gets a close frame back
            while (!closed) {
                int first = in.read();
                if (first < 0) {
                    return;
                }
                int second = in.read();
                if (second < 0) {
                    return;
                }
                long length = second & 0x7f;
                if (length == 126) {
                    length = (in.read() << 8) | in.read();
                } else if (length == 127) {
                    length = 0;
                    for (int i = 0; i < 8; i++) {
                        length = (length << 8) | in.read();
                    }
                }
                long skip = length + ((second & 0x80) != 0 ? 4 : 0);
                in.skipNBytes(skip);
                if ((first & 0x0f) == 0x8) {
                    out.write(new byte[] {(byte) 0x88, 0});
                    out.flush();
                    return;
                }
            }
            return;
        }
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        while (!closed && in.read() >= 0) {
            // held open until the client closes it
        }
    }

    private Map<String, Object> list(Target t, Map<String, String> query) {
        String fieldSelector = query.getOrDefault("fieldSelector", "");
        String wantedName = "";
        for (String clause : fieldSelector.split(",")) {
            if (clause.startsWith("metadata.name=")) {
                wantedName = clause.substring("metadata.name=".length());
            }
        }
        List<Map<String, Object>> items = new ArrayList<>();
        String prefix = t.prefix();
        for (Map.Entry<String, Map<String, Object>> e : objects.entrySet()) {
            if (e.getKey().startsWith(prefix)
                    && (wantedName.isEmpty() || wantedName.equals(metadata(e.getValue()).get("name")))) {
                items.add(e.getValue());
            }
        }
        String kind = KINDS.stream().filter(k -> k.plural().equals(t.plural())).map(Kind::kind).findFirst()
                .orElse("");
        return Map.of("apiVersion", t.apiVersion(), "kind", kind + "List",
                "metadata", Map.of("resourceVersion", Long.toString(resourceVersion.get())), "items", items);
    }

    private void store(Map<String, Object> object) {
        String apiVersion = String.valueOf(object.get("apiVersion"));
        String kind = String.valueOf(object.get("kind"));
        Kind k = KINDS.stream().filter(x -> x.apiVersion().equals(apiVersion) && x.kind().equals(kind)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("the stand-in API server does not know " + apiVersion
                        + " " + kind));
        Object ns = metadata(object).get("namespace");
        Target t = new Target(apiVersion, k.namespaced() && ns != null ? ns.toString() : "", k.plural(), "", "");
        store(t, String.valueOf(metadata(object).get("name")), deepCopy(object));
    }

    private Map<String, Object> store(Target t, String name, Map<String, Object> object) {
        Map<String, Object> meta = metadata(object);
        meta.put("name", name);
        if (!t.namespace().isEmpty()) {
            meta.put("namespace", t.namespace());
        } else {
            meta.remove("namespace");
        }
        meta.put("resourceVersion", Long.toString(resourceVersion.incrementAndGet()));
        meta.putIfAbsent("uid", UUID.nameUUIDFromBytes(t.key(name).getBytes(StandardCharsets.UTF_8)).toString());
        meta.putIfAbsent("creationTimestamp", Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                .toString());
        meta.putIfAbsent("generation", 1);
        objects.put(t.key(name), object);
        return object;
    }

    /** {@code /apis/G/V} or {@code /api/v1}: the group version whose resources are asked for. */
    private static Optional<String> discovery(String path) {
        String[] s = segments(path);
        if (s.length == 2 && s[0].equals("api")) {
            return Optional.of(s[1]);
        }
        if (s.length == 3 && s[0].equals("apis")) {
            return Optional.of(s[1] + "/" + s[2]);
        }
        return Optional.empty();
    }

    private static Optional<Target> target(String path) {
        String[] s = segments(path);
        int rest;
        String apiVersion;
        if (s.length >= 3 && s[0].equals("api")) {
            apiVersion = s[1];
            rest = 2;
        } else if (s.length >= 4 && s[0].equals("apis")) {
            apiVersion = s[1] + "/" + s[2];
            rest = 3;
        } else {
            return Optional.empty();
        }
        List<String> r = List.of(s).subList(rest, s.length);
        String namespace = "";
        if (r.size() >= 3 && r.get(0).equals("namespaces")) { // namespaces/NS/PLURAL...; "namespaces/NAME" is a get
            namespace = r.get(1);
            r = r.subList(2, r.size());
        }
        if (r.isEmpty() || r.size() > 3) {
            return Optional.empty();
        }
        return Optional.of(new Target(apiVersion, namespace, r.get(0), r.size() > 1 ? r.get(1) : "",
                r.size() > 2 ? r.get(2) : ""));
    }

    private static String[] segments(String path) {
        return java.util.Arrays.stream(path.split("/")).filter(x -> !x.isEmpty())
                .map(x -> URLDecoder.decode(x, StandardCharsets.UTF_8)).toArray(String[]::new);
    }

    private static Map<String, String> query(String q) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : q.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            out.put(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
                    eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static Map<String, Object> status(int code, String reason, String message) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("kind", "Status");
        s.put("apiVersion", "v1");
        s.put("metadata", Map.of());
        s.put("status", code < 300 ? "Success" : "Failure");
        s.put("message", message);
        if (!reason.isEmpty()) {
            s.put("reason", reason);
        }
        s.put("code", code);
        return s;
    }

    private void send(OutputStream out, int code, Object body) throws IOException {
        byte[] bytes = json.writeValueAsBytes(body);
        out.write(("HTTP/1.1 " + code + " " + (code < 300 ? "OK" : "Error") + "\r\nContent-Type: application/json"
                + "\r\nContent-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> tree(byte[] body) throws IOException {
        Object o = body.length == 0 ? null : json.readValue(body, Object.class);
        return o instanceof Map<?, ?> m ? new LinkedHashMap<>((Map<String, Object>) m) : new LinkedHashMap<>();
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> deepCopy(Map<String, Object> o) {
        return json.convertValue(o, LinkedHashMap.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> metadata(Map<String, Object> object) {
        Object m = object.get("metadata");
        if (m instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>((Map<String, Object>) map);
            object.put("metadata", copy);
            return copy;
        }
        Map<String, Object> fresh = new LinkedHashMap<>();
        object.put("metadata", fresh);
        return fresh;
    }

    @SuppressWarnings("unchecked")
    private static void merge(Map<String, Object> into, Map<?, ?> patch) {
        patch.forEach((k, v) -> {
            String key = String.valueOf(k);
            if (v == null) {
                into.remove(key);
            } else if (v instanceof Map<?, ?> pm && into.get(key) instanceof Map<?, ?> existing) {
                Map<String, Object> copy = new LinkedHashMap<>((Map<String, Object>) existing);
                merge(copy, pm);
                into.put(key, copy);
            } else {
                into.put(key, v);
            }
        });
    }

    private void count(String what) {
        counts.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
    }

    private void count(String what, String plural) {
        count(what);
        count(what + " " + plural);
    }

    private static byte[] body(InputStream in, Map<String, String> headers) throws IOException {
        if ("chunked".equalsIgnoreCase(headers.getOrDefault("transfer-encoding", ""))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (true) {
                String size = line(in);
                if (size == null) {
                    return out.toByteArray();
                }
                int semi = size.indexOf(';');
                int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).strip(), 16);
                if (n == 0) {
                    for (String trailer = line(in); trailer != null && !trailer.isEmpty(); trailer = line(in)) {
                        // trailers are dropped
                    }
                    return out.toByteArray();
                }
                out.write(in.readNBytes(n));
                line(in);
            }
        }
        String length = headers.get("content-length");
        return length == null ? new byte[0] : in.readNBytes(Integer.parseInt(length.strip()));
    }

    /** One CRLF-terminated line, without the CRLF; null at the end of the stream. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                byte[] bytes = b.toByteArray();
                int end = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
            }
            b.write(c);
        }
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
    }
}
