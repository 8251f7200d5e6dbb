package io.kvcacheinjector.app.check;

import java.util.Optional;

/**
 * The catalogue of {@code check} findings. The {@link #id()} is stable: scripts filter on it, and
 * docs/reference/check.md lists every code with its severity, what it finds and its fix (a test keeps the page and
 * this enum equal). Declared in the order {@code check} looks: the install first, then the engines, then workloads, then
 * the Bindings' reuse domains.
 */
public enum FindingCode {
    WEBHOOK_MISSING("webhook-missing", Severity.ERROR,
            "No MutatingWebhookConfiguration registers this project's kvcache webhook (inject.kvcache.kvcache-injector.io), or CacheBlend workloads exist and none registers the CacheBlend webhook (inject.cacheblend.kvcache-injector.io).",
            "Install the chart (helm upgrade --install), with cacheBlend.enabled=true for CacheBlend workloads."),
    CA_BUNDLE_EMPTY("ca-bundle-empty", Severity.ERROR,
            "A webhook of the install calls a Service and has no clientConfig.caBundle, so the API server cannot trust the server's certificate and every call fails.",
            "With tls.certManager.enabled, check that cert-manager runs and issued the Certificate (its cainjector fills the caBundle); otherwise reinstall the chart, which writes its own CA."),
    CERTIFICATE_EXPIRED("certificate-expired", Severity.ERROR,
            "The serving certificate in the install's TLS Secret (tls.crt of the Secret the webhook Deployment mounts, <fullname>-tls) has expired, so the API server refuses the TLS handshake and every call of the webhook fails.",
            "With tls.certManager.enabled, check why cert-manager did not renew the Certificate (kubectl describe certificate) and renew it (cmctl renew); otherwise delete the Secret and run helm upgrade, which generates a new CA and certificate (the chart keeps them across upgrades while the Secret exists)."),
    CERTIFICATE_EXPIRING("certificate-expiring", Severity.WARNING,
            "The serving certificate in the install's TLS Secret expires in under 30 days; once it has, every call of the webhook fails (certificate-expired).",
            "With tls.certManager.enabled, check that cert-manager renews the Certificate (it should, renewBefore ahead); otherwise delete the Secret and run helm upgrade, which generates a new CA and certificate."),
    WEBHOOK_UNREADY("webhook-unready", Severity.ERROR,
            "/readyz of the webhook's Service, reached through the API server's service proxy, does not answer 200 (no ready endpoint, a failing sync, or no connection).",
            "Check the webhook Deployment's Pods (kubectl get pods, kubectl logs) and its RBAC; /readyz names what is not synced."),
    WEBHOOK_URL("webhook-url", Severity.INFO,
            "A webhook of the install is called at a URL (webhook.url), not through a Service, so check does not call it.",
            "Nothing, if the server at that URL is intended; check its /readyz from where the API server runs."),
    CRD_MISSING("crd-missing", Severity.ERROR,
            "A kind the install reads is not served: KVCachePoolBinding, KVCachePool or KVCacheBackend (worker.gpustack.ai), or CacheBlendEngine (lmcache.lmcache.ai) when the CacheBlend webhook is registered.",
            "Install the CRD (deploy/crds/), or install the chart with cacheBlend.enabled=false when CacheBlend is not used."),
    ENGINE_NOT_RECONCILED("engine-not-reconciled", Severity.ERROR,
            "A CacheBlendEngine has no <name>-connection ConfigMap, or its ConfigValid condition is False, so the CacheBlend webhook skips every Pod that names it.",
            "Check that the engine's operator runs; read the engine's ConfigValid condition and correct its spec."),
    IMAGES_MISMATCHED("images-mismatched", Severity.WARNING,
            "A CacheBlendEngine's payload image tag (spec.injection.payloadImage.tag) differs from its engine image tag (spec.image.tag); an unmatched plugin and vllm-openai pair fails at start with an ImportError.",
            "Pin a matched pair: set both tags to the same LMCache build."),
    WEBHOOK_CONFLICT("webhook-conflict", Severity.WARNING,
            "Another MutatingWebhookConfiguration selects Pods by the same opt-in label (for example an upstream LMCache or Tensormesh operator's), so two webhooks write the same Pod.",
            "Uninstall the other webhook, or change its objectSelector so that one webhook serves each label."),
    RELEASE_NAMESPACE_OPT_IN("release-namespace-opt-in", Severity.ERROR,
            "A workload or Pod opts in inside a namespace every webhook of the install excludes (the release namespace, kube-system, webhook.excludedNamespaces), so it is never injected.",
            "Run the workload in another namespace; a CacheBlend Pod names the engine as <release-namespace>/<name>."),
    WORKLOAD_REFUSED("workload-refused", Severity.ERROR,
            "A workload template or bare Pod with an opt-in label would be refused by the webhook now, or would be once the cluster object or removable annotation an earlier refusal of it names is fixed (the message then says which); the message carries the refusal's, starting with its code.",
            "Change the template as the refusal says (docs/reference/refusal-codes.md), or fix the cluster object it names."),
    WORKLOAD_SKIPPED("workload-skipped", Severity.ERROR,
            "A CacheBlend workload template or bare Pod would be skipped now (admitted without CacheBlend), or would be once its engine is reconciled or allowed or its lmcache.ai/pd-role corrected (the message then says which skip it follows), or a running Pod carries lmcache.ai/cacheblend-skip-reason.",
            "Fix what the skip code names (docs/reference/refusal-codes.md), then let the workload roll."),
    NAMESPACE_NOT_PRIVILEGED("namespace-not-privileged", Severity.ERROR,
            "A CacheBlend workload, whether or not it would be injected now, runs in a namespace whose pod-security.kubernetes.io/enforce label is not privileged; Pod Security rejects the injected hostIPC (or hostPath /dev/shm).",
            "Label the namespace pod-security.kubernetes.io/enforce=privileged, or run the workload in a namespace that is."),
    PULL_SECRET_MISSING("pull-secret-missing", Severity.ERROR,
            "A Secret the CacheBlend injection would put in imagePullSecrets (the engine's spec.injection.imagePullSecrets, or the workload's lmcache.ai/cacheblend-image-pull-secrets, which replaces it) does not exist in the workload's namespace, whether or not the workload would be injected now, so the private plugin init container fails with ImagePullBackOff.",
            "Create the pull Secret in the workload's namespace (kubectl create secret docker-registry), not only in the engine's."),
    POD_NOT_INJECTED("pod-not-injected", Severity.ERROR,
            "A Pod carries an opt-in label and no injection record: it was created before the webhook was installed, or admitted while a fail-open webhook could not be called.",
            "Delete the Pod so its controller recreates it (or recreate a bare Pod) once the webhook is ready."),
    DOMAIN_NOT_REGISTERED("domain-not-registered", Severity.WARNING,
            "A KVCachePoolBinding's reuse domain (spec.domain.name; default when empty) is not named in its pool's status.domains[] while the pool's QuotaLedgerAvailable is True, so the pool controller has not registered it in the master's quota policy: on a multi-tenant master every put of a Pod bound to it fails with TENANT_NOT_REGISTERED while the engine starts normally and caches nothing. A pool that publishes no status.domains[] is not compared.",
            "Wait for the pool controller to register the domain (it publishes the list after each pass), or check the master's quota policy; a Binding without spec.domain.name needs one, since a pool controller registers only named domains."),
    NOT_CHECKED("not-checked", Severity.INFO,
            "A read was forbidden or failed, so one check was not made; the finding names the read.",
            "Run check with credentials that may read that kind, or ignore it if that check does not apply.");

    private final String id;
    private final Severity severity;
    private final String finds;
    private final String fix;

    FindingCode(String id, Severity severity, String finds, String fix) {
        this.id = id;
        this.severity = severity;
        this.finds = finds;
        this.fix = fix;
    }

    /** The stable kebab-case code. */
    public String id() {
        return id;
    }

    public Severity severity() {
        return severity;
    }

    /** One sentence: what the code finds. */
    public String finds() {
        return finds;
    }

    /** The general fix; a finding's own fix may be more precise. */
    public String fix() {
        return fix;
    }

    public static Optional<FindingCode> byId(String id) {
        for (FindingCode c : values()) {
            if (c.id.equals(id)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return id;
    }
}
