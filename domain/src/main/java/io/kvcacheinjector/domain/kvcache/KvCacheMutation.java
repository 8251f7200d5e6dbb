package io.kvcacheinjector.domain.kvcache;

import static io.kvcacheinjector.domain.kvcache.KvCacheKeys.*;

import io.kvcacheinjector.domain.PatchOp;
import io.kvcacheinjector.domain.PodPatch;
import io.kvcacheinjector.domain.flags.FlagGrammar;
import io.kvcacheinjector.domain.flags.FlagResolver;
import io.kvcacheinjector.domain.pod.Container;
import io.kvcacheinjector.domain.pod.EnvVar;
import io.kvcacheinjector.domain.pod.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a {@link Rendering} into the JSON Patch against the Pod exactly as received (docs/reference/kvcache-contract.md):
 * args appended (never {@code command}), env written in place (one value per name), the toggles only when
 * absent, the volume and read-only mount for the file vehicle, then the annotations. Missing parents are created;
 * nothing else is touched.
 */
public final class KvCacheMutation {
    private KvCacheMutation() {
    }

    public static List<PatchOp> patch(Pod pod, Container target, Rendering rendering, FlagGrammar grammar,
                                      InjectionRecord record) {
        List<PatchOp> ops = new ArrayList<>();
        String c = "/spec/containers/" + target.index();

        List<String> args = new ArrayList<>(rendering.args());
        List<String> argv = target.argv();
        for (String flag : rendering.defaultedFlags()) {
            if (!FlagResolver.present(grammar, argv, flag)) {
                args.add(flag);
            }
        }
        PodPatch.appendAll(ops, c + "/args", target.args().isPresent(), new ArrayList<>(args));

        List<EnvVar> env = target.envOrEmpty();
        List<Object> appended = new ArrayList<>();
        List<String> appendedNames = new ArrayList<>();
        for (EnvEntry e : rendering.env()) {
            boolean replaced = false;
            for (int i = 0; i < env.size(); i++) {
                if (env.get(i).name().equals(e.name())) {
                    ops.add(PatchOp.replace(c + "/env/" + i, e.toJson()));
                    replaced = true;
                }
            }
            if (!replaced && !appendedNames.contains(e.name())) {
                appended.add(e.toJson());
                appendedNames.add(e.name());
            }
        }
        for (EnvEntry t : TOGGLES) {
            if (!target.hasEnv(t.name()) && !appendedNames.contains(t.name())) {
                appended.add(t.toJson());
                appendedNames.add(t.name());
            }
        }
        PodPatch.appendAll(ops, c + "/env", target.env().isPresent(), appended);

        if (rendering.vehicle() == Vehicle.FILE) {
            Map<String, Object> fieldRef = new LinkedHashMap<>();
            fieldRef.put("fieldPath", "metadata.annotations['" + CLIENT_CONFIG + "']");
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("path", FILE_NAME);
            item.put("fieldRef", fieldRef);
            Map<String, Object> volume = new LinkedHashMap<>();
            volume.put("name", VOLUME_NAME);
            volume.put("downwardAPI", Map.of("items", List.of(item)));
            PodPatch.appendAll(ops, "/spec/volumes", pod.volumes().isPresent(), new ArrayList<>(List.of(volume)));
            Map<String, Object> mount = new LinkedHashMap<>();
            mount.put("name", VOLUME_NAME);
            mount.put("mountPath", MOUNT_PATH);
            mount.put("readOnly", true);
            PodPatch.appendAll(ops, c + "/volumeMounts", target.volumeMounts().isPresent(), new ArrayList<>(List.of(mount)));
        }

        Map<String, Object> annotations = new LinkedHashMap<>();
        rendering.clientConfig().ifPresent(cc -> annotations.put(CLIENT_CONFIG, cc));
        annotations.put(INJECTED, record.toJson());
        PodPatch.addAnnotations(ops, pod, annotations);
        return ops;
    }

    /** Adds annotations, creating {@code metadata} or {@code metadata.annotations} when absent. */


    /** Appends {@code values} to the list at {@code path}: element by element when it exists, else creates it. */

}
