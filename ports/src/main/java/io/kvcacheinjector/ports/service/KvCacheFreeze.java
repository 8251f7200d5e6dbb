package io.kvcacheinjector.ports.service;

import io.kvcacheinjector.ports.in.KvCacheFreezeUseCase;
import static io.kvcacheinjector.domain.kvcache.KvCacheKeys.CLIENT_CONFIG;
import static io.kvcacheinjector.domain.kvcache.KvCacheKeys.INJECTED;
import static io.kvcacheinjector.domain.kvcache.KvCacheKeys.LABEL_INJECT;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.json.Json;
import io.kvcacheinjector.domain.pod.Pod;
import io.kvcacheinjector.domain.pod.PodReader;
import io.kvcacheinjector.domain.pod.PodReading;
import java.util.ArrayList;
import java.util.List;
import io.kvcacheinjector.domain.pod.ReceivedPod;
import java.util.Objects;
import java.util.Optional;

/**
 * The freeze (docs/reference/kvcache-contract.md): on Pod UPDATE, the opt-in label and the two written annotations may not change
 * while either the old or the new Pod is opted in. Every failure is reported, in table order; terminating Pods get
 * no bypass; everything else (finalizers included) passes.
 */
public final class KvCacheFreeze implements KvCacheFreezeUseCase {
    private static final String TAIL = "; change the Pod's definition (its workload template) and let the Pod be replaced.";

    @Override
    public Decision validate(String requestNamespace, ReceivedPod oldPod, ReceivedPod newPod) {
        Object oldObject = oldPod.json();
        Object newObject = newPod.json();
        PodReading oldReading = PodReader.read(oldObject);
        PodReading newReading = PodReader.read(newObject);
        if (!(oldReading instanceof PodReading.Read oldRead) || !(newReading instanceof PodReading.Read newRead)) {
            boolean involved = optedIn(oldObject) || optedIn(newObject);
            if (!involved) {
                return Decision.Admit.unchanged();
            }
            String problem = oldReading instanceof PodReading.Unreadable u ? "old object: " + u.problem()
                    : "new object: " + ((PodReading.Unreadable) newReading).problem();
            return new Decision.Refuse(List.of(ReasonCode.POD_UNREADABLE), "pod-unreadable: the update could not be read as a Pod ("
                    + problem + "), so the freeze of " + LABEL_INJECT + ", " + INJECTED + " and " + CLIENT_CONFIG
                    + " cannot be checked" + TAIL);
        }
        Pod before = oldRead.pod();
        Pod after = newRead.pod();
        boolean wasIn = isTrue(before.label(LABEL_INJECT));
        boolean isIn = isTrue(after.label(LABEL_INJECT));
        if (!wasIn && !isIn) {
            return Decision.Admit.unchanged();
        }
        String pod = after.displayName(requestNamespace);
        List<ReasonCode> codes = new ArrayList<>();
        List<String> sentences = new ArrayList<>();
        if (wasIn != isIn) {
            codes.add(ReasonCode.FROZEN_LABEL);
            sentences.add("frozen-label: label " + LABEL_INJECT + " on Pod " + pod + " changed from " + show(before.label(LABEL_INJECT))
                    + " to " + show(after.label(LABEL_INJECT)) + ", but injection happens only at CREATE and is never undone, so "
                    + (isIn ? "the Pod would carry the label that says it uses a cache and none of the configuration"
                            : "the injected args, env and volume stay on this Pod")
                    + "; change the label where the Pod is defined and let the Pod be replaced.");
        }
        Optional<String> recordBefore = before.annotation(INJECTED);
        Optional<String> recordAfter = after.annotation(INJECTED);
        if (!Objects.equals(recordBefore, recordAfter)) {
            codes.add(ReasonCode.FROZEN_RECORD);
            sentences.add("frozen-record: annotation " + INJECTED + " on Pod " + pod + " was " + change(recordBefore, recordAfter)
                    + ", and it records what admission decided, which nothing re-derives; change the kvcache annotations where the Pod is defined and let the Pod be replaced.");
        }
        Optional<String> configBefore = before.annotation(CLIENT_CONFIG);
        Optional<String> configAfter = after.annotation(CLIENT_CONFIG);
        if (!Objects.equals(configBefore, configAfter)) {
            codes.add(ReasonCode.FROZEN_CLIENT_CONFIG);
            sentences.add("frozen-client-config: annotation " + CLIENT_CONFIG + " on Pod " + pod + " was " + change(configBefore, configAfter)
                    + ", and the kubelet keeps projecting it into the running container's configuration file (/etc/gpustack/kvcache/mooncake.json), even through termination; change the Binding, or the Pod's definition, and let the Pod be replaced.");
        }
        if (codes.isEmpty()) {
            return Decision.Admit.unchanged();
        }
        return new Decision.Refuse(codes, String.join(" ", sentences));
    }

    private static boolean isTrue(Optional<String> v) {
        return v.filter(s -> s.equals("true")).isPresent();
    }

    private static String show(Optional<String> v) {
        return v.map(Json::quote).orElse("(absent)");
    }

    private static String change(Optional<String> before, Optional<String> after) {
        if (before.isEmpty()) {
            return "added";
        }
        return after.isEmpty() ? "removed" : "edited";
    }

    private static boolean optedIn(Object object) {
        return KvCacheInjection.optedIn(object);
    }
}
