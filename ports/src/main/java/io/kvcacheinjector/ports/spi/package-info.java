/**
 * The engine SPI: {@link io.kvcacheinjector.ports.spi.EngineInjector}, implemented once by each engine plugin and
 * marked {@link io.kvcacheinjector.ports.spi.EnginePlugin}; {@link io.kvcacheinjector.ports.spi.Engines} is the set
 * the webhook loaded, validated (unique ids, unique annotation values, at most one engine per capability). A plugin's
 * class loader sees this package, {@code io.kvcacheinjector.domain} and the JDK, nothing else
 * (docs/reference/engine-spi.md).
 */
package io.kvcacheinjector.ports.spi;
