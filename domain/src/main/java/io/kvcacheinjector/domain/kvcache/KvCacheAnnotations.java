package io.kvcacheinjector.domain.kvcache;

import io.kvcacheinjector.domain.text.MessageText;
import static io.kvcacheinjector.domain.kvcache.KvCacheKeys.*;

import io.kvcacheinjector.domain.Decision;
import io.kvcacheinjector.domain.ReasonCode;
import io.kvcacheinjector.domain.json.Json;
import io.kvcacheinjector.domain.pod.Pod;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/** Parses and validates the annotation contract of an opted-in Pod, in the catalogue's check order. */
public final class KvCacheAnnotations {
    /** The parsed request, or the refusal. */
    public sealed interface Reading permits Parsed, Refused {
    }

    public record Parsed(KvCacheRequest request, Optional<String> manufacturer) implements Reading {
    }

    public record Refused(Decision.Refuse refusal) implements Reading {
    }

    private KvCacheAnnotations() {
    }

    /**
     * Reads the annotations of {@code pod}; {@code installed} are the engines this webhook has, whose selectors decide
     * which engine a Pod declares.
     */
    public static Reading read(Pod pod, List<SelectableEngine> installed) {
        Map<String, String> a = pod.annotations();
        TreeSet<String> ours = new TreeSet<>();
        for (String k : a.keySet()) {
            if (k.startsWith(PREFIX)) {
                ours.add(k);
            }
        }
        for (String k : ours) {
            if (k.equals(CLIENT_CONFIG) || k.equals(INJECTED)) {
                return refuse(ReasonCode.ANNOTATION_RESERVED, "annotation " + k
                        + " is output of admission, not input: only this webhook writes it, and a submitted value would be a record of a decision nobody made; remove it (a manifest exported from a running Pod carries "
                        + CLIENT_CONFIG + " and " + INJECTED + " and must be cleaned before it is reused)");
            }
        }
        for (String k : ours) {
            if (!ACCEPTED.contains(k) && !k.equals(DOMAIN)) {
                return refuse(ReasonCode.ANNOTATION_UNKNOWN, "annotation " + MessageText.quote(k)
                        + " is not part of the kvcache.gpustack.ai contract, so a typo would leave the Pod configured differently from its manifest; the accepted keys are "
                        + String.join(", ", ACCEPTED) + "; correct the key (usually a typo or a case slip) or remove it");
            }
        }
        if (a.containsKey(DOMAIN)) {
            return refuse(ReasonCode.ANNOTATION_DOMAIN, "annotation " + DOMAIN + " (value " + MessageText.quote(a.get(DOMAIN))
                    + ") is not accepted: the reuse domain comes only from the KVCachePoolBinding, which registers it and carries its ceiling; remove it, and if this namespace needs a second domain, create a second Binding and name it in "
                    + BINDING);
        }
        Optional<String> engine = Optional.ofNullable(a.get(ENGINE));
        if (engine.isEmpty() || engine.get().isEmpty()) {
            return refuse(ReasonCode.ENGINE_INVALID, "annotation " + ENGINE + " is "
                    + (engine.isEmpty() ? "missing" : "empty")
                    + ", and the engine is declared, never guessed from the image, because engines take entirely different flags; "
                    + EngineChoices.howToDeclare(installed));
        }
        String e = engine.get();
        Optional<String> manufacturer = Optional.ofNullable(a.get(MANUFACTURER));
        EngineChoices choices = EngineChoices.forValue(installed, e);
        if (choices.none()) {
            return refuse(ReasonCode.ENGINE_INVALID, "annotation " + ENGINE + " is " + MessageText.quote(e)
                    + ", which no engine installed in this webhook accepts (accepted: " + String.join(", ", EngineChoices.allValues(installed))
                    + ", in any case)" + EngineChoices.variantHint(installed, e) + "; set " + EngineChoices.plainValuesOr(installed)
                    + EngineChoices.variantFix(installed, e) + ", or install an engine plugin that accepts " + MessageText.quote(e));
        }
        SelectableEngine selected;
        if (manufacturer.isPresent()) {
            String m = manufacturer.get();
            if (choices.variants().isEmpty()) {
                return refuse(ReasonCode.MANUFACTURER_INVALID, "annotation " + MANUFACTURER + " is " + MessageText.quote(m)
                        + " on a Pod declared with engine " + MessageText.quote(e) + ", but " + EngineChoices.whatManufacturersSelect(installed));
            }
            Optional<SelectableEngine> variant = choices.variants().stream()
                    .filter(v -> v.selector().matches(e, manufacturer)).findFirst();
            if (variant.isEmpty()) {
                return refuse(ReasonCode.MANUFACTURER_INVALID, "annotation " + MANUFACTURER + " is " + MessageText.quote(m)
                        + " with engine " + MessageText.quote(e) + ", and " + choices.acceptedManufacturers());
            }
            selected = variant.get();
        } else if (choices.plain().isPresent()) {
            selected = choices.plain().get();
        } else {
            return refuse(ReasonCode.ENGINE_INVALID, "annotation " + ENGINE + " is " + MessageText.quote(e) + " with no "
                    + MANUFACTURER + ", and no installed engine accepts that alone (the installed engines accept: "
                    + String.join("; ", installed.stream().map(i -> i.selector().describe()).sorted(String.CASE_INSENSITIVE_ORDER).toList())
                    + "); add the manufacturer annotation (" + choices.variantsAsFix() + "), or install the engine plugin that runs "
                    + MessageText.quote(e) + " alone");
        }
        String runtime = selected.id();
        Optional<String> role = Optional.ofNullable(a.get(ROLE)).filter(r -> !r.isEmpty());
        Optional<String> normalisedRole = Optional.empty();
        if (role.isPresent()) {
            String r = role.get();
            if (r.equalsIgnoreCase("prefill")) {
                normalisedRole = Optional.of("Prefill");
            } else if (r.equalsIgnoreCase("decode")) {
                normalisedRole = Optional.of("Decode");
            } else {
                return refuse(ReasonCode.ROLE_INVALID, "annotation " + ROLE + " is " + MessageText.quote(r)
                        + ", and the accepted values are Prefill and Decode; a plain server takes no role (Server is the ModelDeployment spelling, not this annotation's); leave the annotation off for a plain server, or set Prefill or Decode");
            }
        }
        boolean forwarding = false;
        if (a.containsKey(LAUNCH_ARGS_FORWARDED)) {
            String f = a.get(LAUNCH_ARGS_FORWARDED);
            if (!isTrue(f)) {
                return refuse(ReasonCode.FORWARDING_INVALID, "annotation " + LAUNCH_ARGS_FORWARDED + " is " + MessageText.quote(f)
                        + ", and \"true\" (exactly, lowercase) is the only accepted value; set \"true\" if the launch really passes appended arguments on to the engine, otherwise remove the annotation");
            }
            forwarding = true;
        }
        Optional<String> binding = Optional.ofNullable(a.get(BINDING));
        if (binding.isEmpty() || binding.get().isEmpty()) {
            return refuse(ReasonCode.BINDING_MISSING, "annotation " + BINDING + " is "
                    + (binding.isEmpty() ? "missing" : "empty")
                    + ", and it selects the pool and the reuse domain; set it to the name of a KVCachePoolBinding in the Pod's namespace");
        }
        if (binding.get().contains("/")) {
            return refuse(ReasonCode.BINDING_CROSS_NAMESPACE, "annotation " + BINDING + " is " + MessageText.quote(binding.get())
                    + ", but Bindings are resolved only in the Pod's own namespace; use the plain name of a Binding in this namespace, and to reach a pool from here, create a Binding here");
        }
        Optional<String> container = Optional.ofNullable(a.get(CONTAINER)).filter(c -> !c.isEmpty());
        return new Parsed(new KvCacheRequest(runtime, engine.get(), normalisedRole, container, forwarding, binding.get()),
                manufacturer);
    }

    private static Reading refuse(ReasonCode code, String text) {
        return new Refused(new Decision.Refuse(List.of(code), code.id() + ": " + text + "."));
    }
}
