package io.kvcacheinjector.ports.spi;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an {@link EngineInjector} implementation with the SPI version it was built against. Write it as
 * {@code @EnginePlugin(spiVersion = EngineInjector.SPI_VERSION)}: the compiler copies the constant of the SPI on the
 * build's class path into the class file, so the loader can tell a plugin built against another SPI apart. A plugin
 * without it is refused at start-up.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface EnginePlugin {
    /** {@code MAJOR.MINOR}, normally {@link EngineInjector#SPI_VERSION}. */
    String spiVersion();
}
