package io.kvcacheinjector.adapters.k8s.file;

import java.util.Objects;

/** Where a namespaced object lives: namespace and name. */
record ObjectKey(String namespace, String name) {
    // equals and hashCode written out: a record's own are linked on first use through an invokedynamic bootstrap,
    // which on a cold JVM cost inject's start-up more than reading the keys (docs/explanation/performance-log.md)
    @Override
    public boolean equals(Object o) {
        return o instanceof ObjectKey k && Objects.equals(namespace, k.namespace) && Objects.equals(name, k.name);
    }

    @Override
    public int hashCode() {
        return 31 * Objects.hashCode(namespace) + Objects.hashCode(name);
    }

    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
