package io.kvcacheinjector.app.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.net.spi.InetAddressResolver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The resolver over a delegate: forward lookups pass through, reverse lookups never reach it. */
class NoReverseLookupResolverTest {
    /** A DNS server that drops every reverse query: its lookups never return. */
    private static final class DroppingReverseQueries implements InetAddressResolver {
        final AtomicInteger forward = new AtomicInteger();
        final AtomicInteger reverse = new AtomicInteger();
        private final CountDownLatch never = new CountDownLatch(1);

        @Override
        public Stream<InetAddress> lookupByName(String host, LookupPolicy lookupPolicy) throws UnknownHostException {
            forward.incrementAndGet();
            return Stream.of(InetAddress.getByAddress(host, new byte[]{10, 0, 0, 7}));
        }

        @Override
        public String lookupByAddress(byte[] addr) {
            reverse.incrementAndGet();
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "never.example";
        }
    }

    @Test
    void aReverseLookupIsAnsweredAtOnceWithoutAskingTheDelegate() throws Exception {
        DroppingReverseQueries dns = new DroppingReverseQueries();
        NoReverseLookupResolver resolver = new NoReverseLookupResolver(dns);

        CompletableFuture<Throwable> answer = CompletableFuture.supplyAsync(() -> {
            try {
                resolver.lookupByAddress(new byte[]{10, 1, 2, 3});
                return null;
            } catch (UnknownHostException e) {
                return e;
            }
        });

        // completes although the delegate would never answer; the caller then uses the address literal
        assertThat(answer.get(30, TimeUnit.SECONDS)).isInstanceOf(UnknownHostException.class)
                .hasMessageContaining("no reverse lookups");
        assertThatThrownBy(() -> resolver.lookupByAddress(new byte[16])).isInstanceOf(UnknownHostException.class);
        assertThat(dns.reverse).hasValue(0);
    }

    @Test
    void forwardLookupsAreTheDelegates() throws Exception {
        DroppingReverseQueries dns = new DroppingReverseQueries();
        NoReverseLookupResolver resolver = new NoReverseLookupResolver(dns);

        List<InetAddress> found = resolver.lookupByName("binding.example",
                InetAddressResolver.LookupPolicy.of(InetAddressResolver.LookupPolicy.IPV4)).toList();

        assertThat(found).extracting(InetAddress::getHostAddress).containsExactly("10.0.0.7");
        assertThat(dns.forward).hasValue(1);
    }

    @Test
    void anAddressOfAnotherLengthIsRefusedAsTheContractSays() {
        NoReverseLookupResolver resolver = new NoReverseLookupResolver(new DroppingReverseQueries());
        assertThatThrownBy(() -> resolver.lookupByAddress(new byte[5])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("4 or 16 bytes");
    }

    @Test
    void itIsTheResolverOfThisJvm() throws Exception {
        long before = NoReverseLookupResolver.refusedReverseLookups();

        // the built-in resolver would name 127.0.0.1 from /etc/hosts ("localhost"); this one asks nobody
        assertThat(InetAddress.getByAddress(new byte[]{127, 0, 0, 1}).getHostName()).isEqualTo("127.0.0.1");
        assertThat(NoReverseLookupResolver.refusedReverseLookups()).isGreaterThan(before);
        // forward lookups still work
        assertThat(InetAddress.getByName("localhost").isLoopbackAddress()).isTrue();
    }
}
