package io.kvcacheinjector.domain;

/** The three admission webhooks this project serves, by the path they are served at. */
public enum Webhook {
    KVCACHE_MUTATE("kvcache/mutate"),
    KVCACHE_VALIDATE("kvcache/validate"),
    CACHEBLEND_MUTATE("cacheblend/mutate");

    private final String path;

    Webhook(String path) {
        this.path = path;
    }

    /** The name used in metrics, logs and the {@code review --webhook} flag, for example {@code kvcache/mutate}. */
    public String path() {
        return path;
    }

    /** Finds a webhook by its {@link #path()}. */
    public static java.util.Optional<Webhook> byPath(String path) {
        for (Webhook w : values()) {
            if (w.path.equals(path)) {
                return java.util.Optional.of(w);
            }
        }
        return java.util.Optional.empty();
    }
}
