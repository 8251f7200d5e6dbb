/** The vLLM-Ascend engine: vLLM's grammar and file vehicle with the Ascend connector and the ascend transport. */
package io.kvcacheinjector.engines.ascend;
