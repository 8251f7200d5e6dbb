import io.helidon.common.tls.Tls;
import io.helidon.webserver.WebServer;
import java.io.FileInputStream;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * Helidon 4's floor for tools/perf/floor-at-wire.sh (issue 32; docs/explanation/performance-log.md, "The floor at the
 * wire"): a WebServer as serve builds one (TLS by JSSE from an SSLContext, TCP_NODELAY, no discovered features) with
 * one route, GET /healthz answering "ok", and nothing else in the process. Run with the JDK's source launcher against
 * the shipped jar, which holds Helidon: {@code java -cp kvcache-injector.jar BareHelidon.java PORT STORE.p12}
 * (a PKCS#12 store with the password "changeit"). Listens on 127.0.0.1 only; prints "listening PORT" when it does.
 */
public class BareHelidon {
    public static void main(String[] args) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (var in = new FileInputStream(args[1])) { ks.load(in, "changeit".toCharArray()); }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance("SunX509");
        kmf.init(ks, "changeit".toCharArray());
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        WebServer server = WebServer.builder().host("127.0.0.1").port(Integer.parseInt(args[0]))
                .featuresDiscoverServices(false).shutdownHook(false)
                .connectionOptions(o -> o.tcpNoDelay(true))
                .tls(Tls.builder().sslContext(ctx).build())
                .routing(r -> r.get("/healthz", (req, res) -> res.send("ok\n")))
                .build().start();
        System.out.println("listening " + server.port());
        Thread.currentThread().join();
    }
}
