/**
 * The engines loader: the engines folders ({@code --engines-dir}, {@link io.kvcacheinjector.app.engines.EngineOptions}),
 * one class loader per engine that shows it only the SPI, the domain and the JDK, and the engines' info metric. Every
 * command that decides a Pod loads its engines here; nothing else names an engine.
 */
package io.kvcacheinjector.app.engines;
