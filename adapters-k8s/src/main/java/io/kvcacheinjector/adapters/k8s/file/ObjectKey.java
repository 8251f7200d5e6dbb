package io.kvcacheinjector.adapters.k8s.file;

/** Where a namespaced object lives: namespace and name. */
record ObjectKey(String namespace, String name) {
    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
