package io.kvcacheinjector.domain.cacheblend;

import static io.kvcacheinjector.domain.cacheblend.CacheBlendKeys.*;

import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.PodPatch;
import io.kvcacheinjector.domain.Warning;
import io.kvcacheinjector.domain.cluster.CacheBlendEngine;
import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.flags.FlagResolver;
import io.kvcacheinjector.domain.pod.Container;
import io.kvcacheinjector.domain.pod.EnvVar;
import io.kvcacheinjector.domain.pod.Pod;
import io.kvcacheinjector.domain.pod.Volume;
import io.kvcacheinjector.domain.pod.VolumeMount;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The full CacheBlend injection of one Pod (docs/reference/cacheblend-injection.md, with decisions C10–C14) as a JSON Patch against the Pod
 * exactly as received, and the admission warnings that go with it. It is built only after every check of the evaluation order has
 * passed. The patch touches these paths and no others: {@code spec.hostIPC} or the {@code lmcache-dev-shm} hostPath
 * volume and mount, the {@code cb-plugin} volume, the {@code cb-plugin-stage} init container, the target's
 * {@code volumeMounts}, {@code env} and {@code args}, {@code spec.imagePullSecrets}, and the
 * {@code lmcache.ai/cacheblend-injected} annotation (with a stale skip-reason annotation removed). Missing parents are
 * created; existing entries of the same name are left as they are.
 */
public final class CacheBlendMutation {
    private CacheBlendMutation() {
    }

    /** The patch and the warnings of an injection. */
    public record Injection(List<PatchOp> patch, List<Warning> warnings) {
        public Injection {
            patch = List.copyOf(patch);
            warnings = List.copyOf(warnings);
        }
    }

    public static Injection inject(Pod pod, Container target, CacheBlendEngine engine, ConnectionConfig connection,
                                   FlagGrammar grammar) {
        List<PatchOp> ops = new ArrayList<>();
        List<Warning> warnings = new ArrayList<>();
        String c = "/spec/containers/" + target.index();
        Optional<VolumeMount> devShmMount = target.mountsOrEmpty().stream()
                .filter(m -> isDevShm(m.mountPath())).findFirst();

        // M0: IPC wiring (decision C12).
        List<Object> volumes = new ArrayList<>();
        List<Object> mounts = new ArrayList<>();
        boolean hostPathMode = engine.hostIPC().isPresent() && !engine.hostIPC().get();
        if (!hostPathMode) {
            if (!pod.hostIPC()) {
                ops.add(PatchOp.add("/spec/hostIPC", true));
            }
        } else if (!pod.hostIPC() && devShmMount.isEmpty()) {
            // As upstream: a Pod already sharing the host's IPC, or a container that already mounts something at
            // /dev/shm, gets no second wiring (two mounts at one path would be rejected).
            if (!hasVolume(pod, DEV_SHM_VOLUME)) {
                Map<String, Object> hostPath = new LinkedHashMap<>();
                hostPath.put("path", DEV_SHM_PATH);
                hostPath.put("type", "Directory");
                Map<String, Object> volume = new LinkedHashMap<>();
                volume.put("name", DEV_SHM_VOLUME);
                volume.put("hostPath", hostPath);
                volumes.add(volume);
            }
            if (!hasMount(target, DEV_SHM_VOLUME)) {
                Map<String, Object> mount = new LinkedHashMap<>();
                mount.put("name", DEV_SHM_VOLUME);
                mount.put("mountPath", DEV_SHM_PATH);
                mounts.add(mount);
            }
        }
        devShmMount.ifPresent(m -> {
            String source = pod.volumesOrEmpty().stream().filter(v -> v.name().equals(m.name()))
                    .map(Volume::source).findFirst().orElse("unknown");
            if (!source.equals("hostPath")) {
                warnings.add(CacheBlendMessages.devShmEmptyDir(target, m, source));
            }
        });

        // M1: the staging volume.
        if (!hasVolume(pod, PLUGIN_VOLUME)) {
            Map<String, Object> volume = new LinkedHashMap<>();
            volume.put("name", PLUGIN_VOLUME);
            volume.put("emptyDir", new LinkedHashMap<>());
            volumes.add(volume);
        }
        PodPatch.appendAll(ops, "/spec/volumes", pod.volumes().isPresent(), volumes);

        // M2: the init container that stages the plugin from the payload image.
        if (pod.initContainers().stream().noneMatch(i -> i.name().equals(INIT_CONTAINER))) {
            Map<String, Object> init = new LinkedHashMap<>();
            init.put("name", INIT_CONTAINER);
            init.put("image", engine.payloadRepository().orElseThrow() + ":" + engine.payloadTag());
            init.put("imagePullPolicy", engine.payloadPullPolicy());
            init.put("env", List.of(env(SHARED_DIR_ENV, PLUGIN_PATH)));
            Map<String, Object> mount = new LinkedHashMap<>();
            mount.put("name", PLUGIN_VOLUME);
            mount.put("mountPath", PLUGIN_PATH);
            init.put("volumeMounts", List.of(mount));
            // An absent and an empty list both take a whole-list add, which also replaces an empty one.
            PodPatch.appendAll(ops, "/spec/initContainers", !pod.initContainers().isEmpty(), List.of(init));
        }

        // M3: the read-only mount on the target, unless the plugin is already mounted at its path (a mount of the
        // plugin volume elsewhere does not count: PYTHONPATH names /cb-plugin; another volume there was refused before).
        if (!hasMountAt(target, PLUGIN_PATH)) {
            Map<String, Object> mount = new LinkedHashMap<>();
            mount.put("name", PLUGIN_VOLUME);
            mount.put("mountPath", PLUGIN_PATH);
            mount.put("readOnly", true);
            mounts.add(mount);
        }
        PodPatch.appendAll(ops, c + "/volumeMounts", target.volumeMounts().isPresent(), mounts);

        // M4: PYTHONPATH, then the PD side channel, on the target only.
        List<EnvVar> env = target.envOrEmpty();
        List<Object> appendedEnv = new ArrayList<>();
        int pythonPath = lastIndexOf(env, PYTHONPATH);
        if (pythonPath < 0) {
            appendedEnv.add(env(PYTHONPATH, PLUGIN_PATH));
        } else {
            EnvVar existing = env.get(pythonPath);
            String value;
            if (existing.valueFrom()) {
                value = PLUGIN_PATH;
                warnings.add(CacheBlendMessages.pythonPathValueFrom(target));
            } else {
                String old = existing.value().orElse("");
                value = old.isEmpty() ? PLUGIN_PATH : PLUGIN_PATH + ":" + old;
            }
            ops.add(PatchOp.replace(c + "/env/" + pythonPath, env(PYTHONPATH, value)));
        }
        if (engine.pd()) {
            if (!target.hasEnv(NIXL_HOST_ENV)) {
                Map<String, Object> host = new LinkedHashMap<>();
                host.put("name", NIXL_HOST_ENV);
                host.put("valueFrom", Map.of("fieldRef", Map.of("fieldPath", "status.podIP")));
                appendedEnv.add(host);
            }
            if (!target.hasEnv(NIXL_PORT_ENV)) {
                appendedEnv.add(env(NIXL_PORT_ENV, Integer.toString(engine.nixlSideChannelPort())));
            }
        }
        PodPatch.appendAll(ops, c + "/env", target.env().isPresent(), appendedEnv);
        int plugins = lastIndexOf(env, VLLM_PLUGINS);
        if (plugins >= 0) {
            warnings.add(CacheBlendMessages.vllmPlugins(target, env.get(plugins)));
        }

        // M5: vLLM args, appended after the container's own (decision C10).
        CacheBlendArgs.Plan args = CacheBlendArgs.plan(grammar, target, CudagraphMode.of(engine.cudagraph()),
                connection.text());
        PodPatch.appendAll(ops, c + "/args", target.args().isPresent(), new ArrayList<>(args.appended()));
        if (!args.overridden().isEmpty()) {
            warnings.add(CacheBlendMessages.overriddenFlags(target, args.overridden()));
        }
        List<String> configFiles = FlagResolver.configFiles(target.argv());
        if (!configFiles.isEmpty()) {
            warnings.add(CacheBlendMessages.configFile(target, configFiles));
        }

        // M7: pull secrets for the payload image.
        List<String> existingSecrets = pod.imagePullSecrets().orElse(List.of());
        List<Object> secrets = new ArrayList<>();
        for (String name : pullSecretNames(pod, engine)) {
            if (!existingSecrets.contains(name)) {
                secrets.add(Map.of("name", name));
            }
        }
        PodPatch.appendAll(ops, "/spec/imagePullSecrets", pod.imagePullSecrets().isPresent(), secrets);

        // M6: the record.
        Map<String, Object> annotations = new LinkedHashMap<>();
        annotations.put(INJECTED, "true");
        PodPatch.addAnnotations(ops, pod, annotations);
        if (pod.annotation(SKIP_REASON).isPresent()) {
            ops.add(new PatchOp(PatchOp.Op.REMOVE, "/metadata/annotations/" + PatchOp.escape(SKIP_REASON), null));
        }

        warnings.sort(Comparator.comparingInt(w -> w.code().ordinal()));
        return new Injection(ops, warnings);
    }

    /**
     * The patch of a skip: only the {@code lmcache.ai/cacheblend-skip-reason} annotation, creating
     * {@code metadata.annotations} (or {@code metadata}) when absent (decision C7).
     */
    public static List<PatchOp> skipPatch(Pod pod, String reason) {
        List<PatchOp> ops = new ArrayList<>();
        Map<String, Object> annotations = new LinkedHashMap<>();
        annotations.put(SKIP_REASON, reason);
        PodPatch.addAnnotations(ops, pod, annotations);
        return ops;
    }

    /**
     * The Secret names to merge: the annotation {@code lmcache.ai/cacheblend-image-pull-secrets} when it is not
     * blank (comma-separated, trimmed, blanks dropped), which replaces the engine's list; otherwise the engine's
     * {@code injection.imagePullSecrets}. Duplicates are dropped, first occurrence kept.
     */
    static List<String> pullSecretNames(Pod pod, CacheBlendEngine engine) {
        Set<String> names = new LinkedHashSet<>();
        Optional<String> annotation = pod.annotation(IMAGE_PULL_SECRETS).filter(s -> !s.isBlank());
        if (annotation.isPresent()) {
            for (String part : annotation.get().split(",", -1)) {
                String name = part.trim();
                if (!name.isEmpty()) {
                    names.add(name);
                }
            }
        } else {
            for (String name : engine.imagePullSecrets()) {
                if (!name.isBlank()) {
                    names.add(name);
                }
            }
        }
        return List.copyOf(names);
    }

    private static boolean isDevShm(String mountPath) {
        String p = mountPath;
        while (p.length() > 1 && p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p.equals(DEV_SHM_PATH);
    }

    private static boolean hasVolume(Pod pod, String name) {
        return pod.volumesOrEmpty().stream().anyMatch(v -> v.name().equals(name));
    }

    private static boolean hasMountAt(Container target, String path) {
        return target.mountsOrEmpty().stream().anyMatch(m -> m.mountPath().equals(path) || m.mountPath().equals(path + "/"));
    }

    private static boolean hasMount(Container target, String name) {
        return target.mountsOrEmpty().stream().anyMatch(m -> m.name().equals(name));
    }

    private static int lastIndexOf(List<EnvVar> env, String name) {
        for (int i = env.size() - 1; i >= 0; i--) {
            if (env.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private static Map<String, Object> env(String name, String value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("value", value);
        return m;
    }

}
