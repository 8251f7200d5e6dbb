package io.kvcacheinjector.adapters.http.testing;

import io.kvcacheinjector.adapters.http.AdmissionUseCases;
import io.kvcacheinjector.domain.Decision;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * Use cases that answer with a fixed function of their input and record every call: which use case, the request
 * namespace and the objects.
 */
public final class FakeUseCases {
    /** One recorded call. */
    public record Call(String useCase, String namespace, List<Object> objects) {
    }

    public final List<Call> calls = new CopyOnWriteArrayList<>();
    public volatile Function<Object, Decision> kvCacheMutate = pod -> Decision.Admit.unchanged();
    public volatile Function<Object, Decision> kvCacheFreeze = pod -> Decision.Admit.unchanged();
    public volatile Function<Object, Decision> cacheBlendMutate = pod -> Decision.Admit.unchanged();

    public AdmissionUseCases useCases() {
        return new AdmissionUseCases(
                (ns, pod) -> {
                    calls.add(new Call("kvcache-mutate", ns, List.of(pod.json())));
                    return kvCacheMutate.apply(pod.json());
                },
                (ns, oldPod, newPod) -> {
                    calls.add(new Call("kvcache-freeze", ns, List.of(oldPod.json(), newPod.json())));
                    return kvCacheFreeze.apply(newPod.json());
                },
                (ns, pod) -> {
                    calls.add(new Call("cacheblend-mutate", ns, List.of(pod.json())));
                    return cacheBlendMutate.apply(pod.json());
                });
    }
}
