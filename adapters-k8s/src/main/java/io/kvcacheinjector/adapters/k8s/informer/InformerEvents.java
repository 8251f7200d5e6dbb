package io.kvcacheinjector.adapters.k8s.informer;

/**
 * What the cluster view tells the operator about its informers: once when an informer starts failing (or fails for a
 * different reason than before), once when it lists again. An informer retries with backoff (up to every 32 s) for as
 * long as the failure lasts; the retries themselves are not reported again. The events and their fields are listed
 * in {@code docs/reference/metrics-and-logs.md}.
 */
public interface InformerEvents {

    /**
     * An informer's list or watch failed for a reason it has not reported since it last worked.
     *
     * @param kind   the kind it watches ({@code CacheBlendEngine})
     * @param scope  where it looks ({@code all namespaces}, {@code gpustack-system/gpustack-settings})
     * @param crd    the CRD the API server does not serve ({@code cacheblendengines.lmcache.lmcache.ai}), or empty
     *               when the failure is not a missing CRD
     * @param reason one clause: the HTTP status and what it means, no stack trace
     * @param fix    what the operator does about it
     */
    void failing(String kind, String scope, String crd, String reason, String fix);

    /** An informer that had reported a failure has listed (and watches) again. */
    void recovered(String kind, String scope);

    /** One line per event through {@link System.Logger} (the default of the library entry points). */
    static InformerEvents systemLogger() {
        System.Logger log = System.getLogger(InformerEvents.class.getName());
        return new InformerEvents() {
            @Override
            public void failing(String kind, String scope, String crd, String reason, String fix) {
                log.log(System.Logger.Level.WARNING, "{0} informer ({1}) failing: {2}; {3} (retrying with backoff)",
                        kind, scope, reason, fix);
            }

            @Override
            public void recovered(String kind, String scope) {
                log.log(System.Logger.Level.INFO, "{0} informer ({1}) has listed again", kind, scope);
            }
        };
    }
}
