/** The SGLang engine: the environment vehicle and SGLang's plain-argparse flag grammar. */
package io.kvcacheinjector.engines.sglang;
