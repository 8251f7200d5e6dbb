/** The engine SPI: one {@link io.kvcacheinjector.ports.spi.EngineInjector} per {@code engines-*} module. */
package io.kvcacheinjector.ports.spi;
