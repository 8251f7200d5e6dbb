package io.kvcacheinjector.adapters.k8s.model;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;

/** {@code lmcache.lmcache.ai/v1alpha1} {@code CacheBlendEngine} (namespaced): a node-local LMCache blend server. */
@Group("lmcache.lmcache.ai")
@Version("v1alpha1")
@Kind("CacheBlendEngine")
@Plural("cacheblendengines")
@Singular("cacheblendengine")
@ShortNames("cbe")
public class CacheBlendEngineResource
        extends CustomResource<CacheBlendEngineResource.Spec, CacheBlendEngineResource.Status> implements Namespaced {

    /** {@code spec}: {@code injection}, {@code hostIPC} and {@code pd} are read; the engine's own settings are kept. */
    public static class Spec extends OpenObject {
        public Injection injection;
        public Boolean hostIPC;
        public Pd pd;
        public Blend blend;
    }

    /** {@code spec.injection}: what the webhook adds to an opted-in vLLM Pod. */
    public static class Injection extends OpenObject {
        public Image payloadImage;
        public List<LocalObjectReference> imagePullSecrets;
        public String targetContainer;
        public String cudagraph;
    }

    /** An image reference: repository, tag ({@code latest}), pull policy ({@code IfNotPresent}). */
    public static class Image extends OpenObject {
        public String repository;
        public String tag;
        public String pullPolicy;
    }

    /** {@code spec.pd}: prefill/decode disaggregation. */
    public static class Pd extends OpenObject {
        public Integer nixlSideChannelPort;
    }

    /** {@code spec.blend}: the blend tunables (written into the connection ConfigMap by the operator). */
    public static class Blend extends OpenObject {
        public Integer checkLayer;
        public Number recompRatio;
    }

    /** {@code status}: phase, instance counts and conditions, as the operator reports them. */
    public static class Status extends OpenObject {
        public String phase;
        public Long observedGeneration;
        public Integer desiredInstances;
        public Integer readyInstances;
        public List<Condition> conditions;
    }
}
