/**
 * The vLLM engine: its {@link io.kvcacheinjector.ports.spi.EngineInjector}, the file-vehicle rendering shared with
 * vLLM-Ascend, and vLLM's flag grammar ({@code _}→{@code -}, dotted members, {@code =value}, abbreviations).
 */
package io.kvcacheinjector.engines.vllm;
