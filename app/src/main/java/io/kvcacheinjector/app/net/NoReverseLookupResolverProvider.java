package io.kvcacheinjector.app.net;

import java.net.spi.InetAddressResolver;
import java.net.spi.InetAddressResolverProvider;

/**
 * Makes {@link NoReverseLookupResolver} the JVM's resolver (JEP 418). The JDK finds it by {@link java.util.ServiceLoader}
 * in {@code META-INF/services/java.net.spi.InetAddressResolverProvider} through the system class loader, which holds
 * {@code kvcache-injector.jar} (the shaded jar merges the service files), the first time anything resolves a name.
 */
public final class NoReverseLookupResolverProvider extends InetAddressResolverProvider {
    @Override
    public InetAddressResolver get(Configuration configuration) {
        return new NoReverseLookupResolver(configuration.builtinResolver());
    }

    @Override
    public String name() {
        return "kvcache-injector: built-in forward lookups, no reverse lookups";
    }
}
