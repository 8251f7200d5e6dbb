package io.kvcacheinjector.adapters.http.tls;

import java.util.Objects;

/** The result of reading TLS material from files: loaded, or why not (one clause, no stack trace). */
public sealed interface TlsLoad permits TlsLoad.Loaded, TlsLoad.Failed {
    record Loaded(TlsMaterial material) implements TlsLoad {
        public Loaded {
            Objects.requireNonNull(material, "material");
        }
    }

    record Failed(String reason) implements TlsLoad {
        public Failed {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
