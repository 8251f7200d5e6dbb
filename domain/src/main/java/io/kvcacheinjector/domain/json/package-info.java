/** A dependency-free JSON reader and byte-stable writer over plain Java maps, lists and scalars. */
package io.kvcacheinjector.domain.json;
