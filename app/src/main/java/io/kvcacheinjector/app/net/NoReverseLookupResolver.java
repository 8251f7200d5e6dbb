package io.kvcacheinjector.app.net;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The JVM's name resolver in {@code serve} and every other command: forward lookups (a name to addresses) go to
 * {@code delegate}, the JDK's built-in resolver; reverse lookups (an address to a name) are answered at once with
 * {@link UnknownHostException}, so that {@link InetAddress#getHostName()} returns the address literal without asking
 * DNS.
 * <p>Helidon 4.5's {@code ConnectionHandler.createNioSocket} calls {@code InetSocketAddress.getHostName()} on the
 * client's address of every accepted TLS connection, to name the peer of its {@code SSLEngine}. With a resolver that
 * drops the query (a Pod whose DNS server does not answer), that reverse lookup held every TLS handshake about 6 s
 * before it failed, longer than the kubelet's 1 s probe timeout, so the webhook never became ready. Nothing in the
 * webhook needs a host name for an address (docs/explanation/decisions.md).
 */
public final class NoReverseLookupResolver implements InetAddressResolver {
    private static final AtomicLong REFUSED = new AtomicLong();

    private final InetAddressResolver delegate;

    /** Over {@code delegate}, which answers the forward lookups. */
    public NoReverseLookupResolver(InetAddressResolver delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public Stream<InetAddress> lookupByName(String host, LookupPolicy lookupPolicy) throws UnknownHostException {
        return delegate.lookupByName(host, lookupPolicy);
    }

    /** Never asks {@code delegate}: there is no host name for {@code addr} here, so callers use its literal. */
    @Override
    public String lookupByAddress(byte[] addr) throws UnknownHostException {
        Objects.requireNonNull(addr, "addr");
        if (addr.length != 4 && addr.length != 16) {
            throw new IllegalArgumentException("an IPv4 or IPv6 address has 4 or 16 bytes, not " + addr.length);
        }
        REFUSED.incrementAndGet();
        throw new UnknownHostException("no reverse lookups in kvcache-injector: the address is used as it is");
    }

    /** How many reverse lookups every instance in this JVM answered without a lookup (tests). */
    public static long refusedReverseLookups() {
        return REFUSED.get();
    }
}
