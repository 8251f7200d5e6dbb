package io.kvcacheinjector.app.check;

import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kvcacheinjector.domain.cacheblend.CacheBlendKeys;
import io.kvcacheinjector.app.wiring.AdmissionWiring;
import io.kvcacheinjector.ports.in.CacheBlendSettings;
import io.kvcacheinjector.ports.spi.Engines;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The checks of {@code check}, in the order of {@link FindingCode}: the install's webhooks and the CRDs it reads
 * ({@link InstallChecks}), every opted-in workload template and Pod in scope, decided now by the webhook's own use
 * cases over a {@link LiveClusterDirectory} ({@link WorkloadChecks}), then the CacheBlendEngines in scope or named by
 * those workloads ({@link EngineChecks}), and the Bindings in scope against their pools' registered domains
 * ({@link TenantChecks}). Read-only.
 */
public final class ClusterCheck {
    /** The cluster could not be read at all: {@code check} exits 2 with this one line. */
    public static final class ClusterUnreadable extends Exception {
        ClusterUnreadable(String message) {
            super(message);
        }
    }

    private final KubernetesClient client;
    private final Optional<String> namespace;
    private final Engines engines;
    private final Clock clock;

    /**
     * @param namespace the namespace to look at, or empty for all namespaces
     */
    public ClusterCheck(KubernetesClient client, Optional<String> namespace, Engines engines) {
        this(client, namespace, engines, Clock.systemUTC());
    }

    /** @param clock what "now" is for the serving certificate's expiry */
    ClusterCheck(KubernetesClient client, Optional<String> namespace, Engines engines, Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.engines = Objects.requireNonNull(engines, "engines");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Runs every check; the findings in catalogue order, then by object. */
    public List<Finding> run() throws ClusterUnreadable {
        List<MutatingWebhookConfiguration> configurations;
        try {
            configurations = client.admissionRegistration().v1().mutatingWebhookConfigurations().list().getItems();
        } catch (KubernetesClientException e) {
            throw new ClusterUnreadable("cannot read the cluster at " + client.getMasterUrl() + ": listing"
                    + " MutatingWebhookConfigurations failed (" + Reads.reason(e) + "); check the kubeconfig, the"
                    + " context and that these credentials may list mutatingwebhookconfigurations");
        }
        Findings findings = new Findings();
        Install install = Install.of(configurations);
        InstallChecks installChecks = new InstallChecks(client, findings);
        InstallChecks.InstallArgs args = installChecks.installArgs(install);
        installChecks.checkWebhooks(install, configurations);
        new CertificateChecks(client, findings, clock).checkServingCertificate(install, args);
        boolean cacheBlendCrd = installChecks.checkCrds(install);

        LiveClusterDirectory directory = new LiveClusterDirectory(client, args.settingsNamespace());
        CacheBlendSettings cacheBlendSettings = new CacheBlendSettings(args.allowedNamespaces(),
                install.cacheBlend().map(Install.Registered::failClosed).orElse(false), Set.of());
        // the use cases the webhook runs, from the one wiring every command uses
        var useCases = AdmissionWiring.of(directory, directory, engines, cacheBlendSettings).useCases();
        WorkloadChecks workloads = new WorkloadChecks(client, directory, namespace, findings);
        boolean cacheBlendUsed = workloads.checkWorkloads(install, new WorkloadChecks.Deciders(
                        useCases.kvCacheMutate(), useCases.cacheBlendMutate(),
                        new WhatIf(directory, engines, cacheBlendSettings)),
                install.kvcache().map(Install.Registered::excludedNamespaces).orElse(Set.of()),
                install.cacheBlend().map(Install.Registered::excludedNamespaces).orElse(Set.of()));
        new TenantChecks(client, directory, namespace, findings).checkBindings();
        if (cacheBlendUsed && install.cacheBlend().isEmpty()) {
            findings.add(FindingCode.WEBHOOK_MISSING, "MutatingWebhookConfiguration (none)", "workloads opt in with "
                    + CacheBlendKeys.LABEL_INJECT + " but no MutatingWebhookConfiguration registers "
                    + Install.CACHEBLEND_WEBHOOK + ", so nothing injects CacheBlend",
                    "install the chart with cacheBlend.enabled=true (the default)");
        }
        if (cacheBlendCrd) {
            new EngineChecks(client, namespace, findings).checkEngines(workloads.enginesNamed());
        }
        return findings.sorted();
    }
}
